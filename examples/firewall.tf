variable "office_cidr" {
  type    = string
  default = "198.51.100.0/24"
}

resource "cloudflare_ruleset" "edge" {
  account_id = var.account_id
  name       = "edge firewall"
  kind       = "root"
  phase      = "magic_transit"

  rules = [
    {
      ref         = "office-ssh"
      description = "ssh from the office"
      action      = "skip"
      action_parameters = {
        ruleset = "current"
      }
      expression = "ip.src in {${var.office_cidr}} and tcp.dstport == 22"
    },
    {
      ref         = "no-ssh"
      description = "ssh from anywhere else"
      action      = "block"
      expression  = <<-EOT
        tcp.dstport == 22
          or tcp.dstport in {23 445}
      EOT
    },
  ]
}

resource "cloudflare_logpush_job" "errors" {
  account_id       = var.account_id
  name             = "server-errors"
  dataset          = "http_requests"
  destination_conf = "s3://logs-bucket/http?region=us-east-1"
  filter = jsonencode({
    where = {
      and = [
        { key = "EdgeResponseStatus", operator = "geq", value = 500 },
        { key = "ClientRequestHost", operator = "!eq", value = "health.example.com" },
      ]
    }
  })
}
