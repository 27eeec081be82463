-- Neovim's own LSP client (0.7's start_client API, which later versions keep) on `rulekit lsp`: open the
-- file, wait for diagnostics, ask for completion at the end of line 2, write both as JSON, quit.
local env = function(k) return assert(os.getenv(k), k) end
local file, out = env('RULEKIT_FILE'), env('RULEKIT_OUT')
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = 'rulekit',
  cmd = { env('RULEKIT_NODE'), env('RULEKIT_CLI'), 'lsp', '--stdio' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
vim.lsp.buf_attach_client(buf, id)
vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local result = { diagnostics = {}, completion = {} }
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, code = d.code or lsp.code, source = d.source or lsp.source })
end
local line = vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1]
local replies = vim.lsp.buf_request_sync(buf, 'textDocument/completion', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 1, character = #line },
}, 10000) or {}
for _, reply in pairs(replies) do
  local items = reply.result and (reply.result.items or reply.result) or {}
  for _, item in ipairs(items) do table.insert(result.completion, item.label) end
end
local f = assert(io.open(out, 'w'))
f:write(vim.fn.json_encode(result))
f:close()
vim.lsp.stop_client(id)
vim.cmd('qall!')
