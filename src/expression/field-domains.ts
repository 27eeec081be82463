/**
 * The values each Int field can hold in a packet or a request: its domain. The language's Int is 64-bit,
 * but an AS number is 32-bit, a port 16-bit, a bot score 0–99; the analysis reasons within these
 * bounds (a condition such as `ip.src.asnum lt 100` covers 0..99, not every negative number), so a
 * region and its witness never lie outside them, and the simulator takes a value outside them as a bad
 * value (missing). A domain must never be narrower than what the service can send: where the docs are
 * unsure the bound is left wide.
 *
 * One row per Int field of the network and HTTP schemes (items for `Array<Integer>` / `Map<Number>`
 * fields), with why; `test/expression/field-domains.test.ts` holds the table against both field tables.
 * Sources are pages of cloudflare/cloudflare-docs.
 * @module
 */

/** Inclusive bounds; a bound left out is the 64-bit one (−2⁶³ or 2⁶³−1). */
export interface IntDomain {
  min?: number;
  max?: number;
}

/** One row: the bounds and why they are these. */
export interface IntDomainRow extends IntDomain {
  why: string;
}

const PORT = { min: 0, max: 65535 } as const;
const BYTE = { min: 0, max: 255 } as const;
const U16 = { min: 0, max: 65535 } as const;
const ASN = { min: 0, max: 4294967295, why: 'AS numbers are 32-bit (RFC 6793)' } as const;
const COUNT = { min: 0 } as const;
/** WAF attack scores: 1–99, and 100 for a request that was not scored (fields reference, `cf.waf.score`). */
const WAF_SCORE = { min: 1, max: 100, why: 'a score 1–99; 100 means the request was not scored (ruleset-engine/rules-language/fields/reference/cf.waf.score)' } as const;

/** The domain of every Int field, by name (a field of both schemes has one domain). */
export const INT_FIELD_DOMAINS: Readonly<Record<string, IntDomainRow>> = {
  // Network fields: header widths (a literal outside them is `value-out-of-range`, see the scheme's `range`).
  'tcp.srcport': { ...PORT, why: 'a 16-bit header field' },
  'tcp.dstport': { ...PORT, why: 'a 16-bit header field' },
  'udp.srcport': { ...PORT, why: 'a 16-bit header field' },
  'udp.dstport': { ...PORT, why: 'a 16-bit header field' },
  'tcp.flags': { ...BYTE, why: 'the 8-bit flags byte' },
  'icmp.type': { ...BYTE, why: 'an 8-bit header field' },
  'icmp.code': { ...BYTE, why: 'an 8-bit header field' },
  'ip.len': { ...U16, why: 'the 16-bit total length' },
  'ip.hdr_len': { ...BYTE, why: 'a header length in bytes (IPv4 at most 60)' },
  'ip.ttl': { ...BYTE, why: 'the 8-bit TTL / hop limit' },
  'ip.opt.type': { ...BYTE, why: 'the 8-bit option type' },
  'ip.src.asnum': ASN,
  'ip.dst.asnum': ASN,
  'ip.geoip.asnum': ASN,
  // HTTP fields.
  'http.request.timestamp.sec': { ...COUNT, why: 'UNIX time in seconds' },
  'http.request.timestamp.msec': { min: 0, max: 999, why: 'the millisecond, 0–999 (fields reference)' },
  'cf.bot_management.score': { min: 0, max: 99, why: 'a score 1–99; 0 means Bot Management did not score the request (bots/concepts/bot-score, "Not computed")' },
  'cf.bot_management.detection_ids': { ...COUNT, why: 'detection IDs (items of the array)' },
  'cf.edge.server_port': { ...PORT, why: 'a port' },
  'cf.threat_score': { min: 0, max: 100, why: 'a score 0–100, now always 0 (fields reference, cf.threat_score)' },
  'cf.tls_client_hello_length': { ...COUNT, why: 'a length' },
  'cf.edge.l4.delivery_rate': { ...COUNT, why: 'a rate in bytes per second' },
  'cf.timings.client_tcp_rtt_msec': { ...COUNT, why: 'a duration' },
  'cf.timings.client_quic_rtt_msec': { ...COUNT, why: 'a duration' },
  'cf.timings.edge_msec': { ...COUNT, why: 'a duration' },
  'cf.timings.origin_ttfb_msec': { ...COUNT, why: 'a duration' },
  'cf.timings.worker_msec': { ...COUNT, why: 'a duration' },
  'cf.waf.content_scan.num_malicious_obj': { ...COUNT, why: 'a count' },
  'cf.waf.content_scan.num_obj': { ...COUNT, why: 'a count' },
  'cf.waf.content_scan.obj_sizes': { ...COUNT, why: 'sizes in bytes (items of the array)' },
  'cf.waf.score': WAF_SCORE,
  'cf.waf.score.sqli': WAF_SCORE,
  'cf.waf.score.xss': WAF_SCORE,
  'cf.waf.score.rce': WAF_SCORE,
  'cf.llm.prompt.injection_score': { min: 1, max: 99, why: 'a score 1–99 (fields reference)' },
  'cf.llm.prompt.token_count': { ...COUNT, why: 'a count' },
  'cf.llm.prompt.custom_topic_categories': { min: 1, max: 99, why: 'relevance scores 1–99 (values of the map)' },
  'http.request.jwt.claims.iat.sec': { why: 'a claim is whatever number the token carries' },
  'http.request.jwt.claims.iat.sec.values': { why: 'a claim is whatever number the token carries' },
  'http.request.jwt.claims.nbf.sec': { why: 'a claim is whatever number the token carries' },
  'http.request.jwt.claims.nbf.sec.values': { why: 'a claim is whatever number the token carries' },
  'http.request.body.size': { ...COUNT, why: 'a size in bytes' },
  'http.response.code': { min: 100, max: 999, why: 'a three-digit status code (RFC 9110 §15)' },
  'cf.response.1xxx_code': { min: 0, max: 1999, why: 'a 1XXX error code; kept down to 0, the docs do not say what a response without one holds' },
  'cf.sequence.msec_since_op': { ...COUNT, why: 'durations (values of the map)' },
};

/** The 64-bit bounds of the language's Int. */
export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;

/** A domain's bounds as bigints, the 64-bit ones where it leaves a bound out. */
export function domainBounds(d: IntDomain | undefined): readonly [bigint, bigint] {
  return [d?.min === undefined ? INT64_MIN : BigInt(d.min), d?.max === undefined ? INT64_MAX : BigInt(d.max)];
}

/** A domain as text: `0..99`, `>= 0`, `any 64-bit integer`. */
export function domainText(d: IntDomain): string {
  if (d.min !== undefined && d.max !== undefined) return `${d.min}..${d.max}`;
  if (d.min !== undefined) return `>= ${d.min}`;
  if (d.max !== undefined) return `<= ${d.max}`;
  return 'any 64-bit integer';
}
