/**
 * The YAML layouts of tools that manage Cloudflare rules, read as the rulesets they stand for:
 * - octorules (doctena-org/octorules-cloudflare): one key per phase (`waf_custom_rules:`, `redirect_rules:`,
 *   …; at the top or under `cloudflare:`), each a list of rules whose `action` defaults to the phase's
 *   (octorules' `_CF_PHASE_SPECS`); `custom_rulesets:` of whole rulesets; `lists:` of typed lists, which
 *   the file's expressions are checked against.
 * - Crossplane's provider-cloudflare `Ruleset` resources: `spec.forProvider` is the ruleset, its members in
 *   camelCase; its rule expressions are checked with the ruleset's phase.
 * Pure: a parsed value in, bodies and pointer maps out.
 * @module
 */
import type { ListItems, ListKind } from '../expression/index.js';
import { PHASE_CATALOG } from '../ruleset/index.js';

/**
 * octorules' phase keys: `[key, phase, default action]`, from octorules-cloudflare's `_CF_PHASE_SPECS`
 * (octorules_cloudflare/__init__.py at 06404fd003dfd61373ad9a707171497f255c3fef).
 */
export const OCTORULES_PHASES: readonly (readonly [key: string, phase: string, defaultAction: string | undefined])[] = [
  ['redirect_rules', 'http_request_dynamic_redirect', 'redirect'],
  ['url_rewrite_rules', 'http_request_transform', 'rewrite'],
  ['request_header_rules', 'http_request_late_transform', 'rewrite'],
  ['response_header_rules', 'http_response_headers_transform', 'rewrite'],
  ['config_rules', 'http_config_settings', 'set_config'],
  ['origin_rules', 'http_request_origin', 'route'],
  ['cache_rules', 'http_request_cache_settings', 'set_cache_settings'],
  ['compression_rules', 'http_response_compression', 'compress_response'],
  ['custom_error_rules', 'http_custom_errors', 'serve_error'],
  ['waf_custom_rules', 'http_request_firewall_custom', undefined],
  ['waf_managed_rules', 'http_request_firewall_managed', undefined],
  ['rate_limiting_rules', 'http_ratelimit', undefined],
  ['bot_fight_rules', 'http_request_sbfm', undefined],
  ['sensitive_data_detection', 'http_response_firewall_managed', undefined],
  ['http_ddos_rules', 'ddos_l7', undefined],
  ['bulk_redirect_rules', 'http_request_redirect', 'redirect'],
  ['log_custom_fields', 'http_log_custom_fields', 'log_custom_field'],
  ['network_ddos_rules', 'ddos_l4', undefined],
  ['network_firewall_rules', 'magic_transit', undefined],
  ['network_firewall_managed', 'magic_transit_managed', undefined],
  ['network_firewall_ratelimit', 'magic_transit_ratelimit', undefined],
  ['network_firewall_ids', 'magic_transit_ids_managed', undefined],
  ['url_normalization', 'http_request_sanitize', undefined],
];

const BY_KEY = new Map(OCTORULES_PHASES.map(([k, phase, action]) => [k, { phase, action }]));

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const token = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** A ruleset a tool's file stands for: the body to validate and where its pointers are in the file. */
export interface ToolRuleset {
  label: string;
  body: Record<string, unknown>;
  /** The file pointer of a pointer into `body`. */
  filePointer(bodyPointer: string): string;
}

/** What a tool's file holds, or undefined when the value is not such a file. */
export interface ToolFile {
  tool: 'octorules' | 'crossplane';
  rulesets: ToolRuleset[];
  /** Lists the file declares (octorules' `lists:`), for its expressions. */
  lists?: ListItems;
}

/** Rulesets of an octorules file (phase keys at the top or under `cloudflare:`). */
function octorules(value: Record<string, unknown>): ToolFile | undefined {
  const nested = isObj(value['cloudflare']) ? (value['cloudflare'] as Record<string, unknown>) : undefined;
  const scopes: [Record<string, unknown>, string][] = nested ? [[nested, '/cloudflare'], [value, '']] : [[value, '']];
  const rulesets: ToolRuleset[] = [];
  let lists: Record<string, { kind: ListKind; items: unknown[] }> | undefined;
  for (const [scope, base] of scopes) {
    for (const [key, v] of Object.entries(scope)) {
      const at = `${base}/${token(key)}`;
      const spec = BY_KEY.get(key);
      if (spec && Array.isArray(v)) {
        // octorules fills in the phase's action where a rule leaves it out, and keeps its own settings
        // (`octorules: {ignored: true}`) in the rule, not in what it sends.
        const rules = v.map((r) => {
          if (!isObj(r)) return r;
          const { octorules: _own, ...rule } = r;
          return rule['action'] === undefined && spec.action ? { ...rule, action: spec.action } : rule;
        });
        const scopes = Object.hasOwn(PHASE_CATALOG, spec.phase) ? (PHASE_CATALOG[spec.phase as keyof typeof PHASE_CATALOG].scopes as readonly string[]) : ['zone'];
        rulesets.push({
          label: at,
          body: { name: key, kind: scopes.includes('zone') ? 'zone' : 'root', phase: spec.phase, rules },
          filePointer: (p) => (p === '/rules' || p.startsWith('/rules/') ? at + p.slice('/rules'.length) : at),
        });
      } else if (key === 'custom_rulesets' && Array.isArray(v)) {
        v.forEach((rs, i) => {
          if (!isObj(rs)) return;
          const here = `${at}/${i}`;
          const { id: _id, ...rest } = rs;
          rulesets.push({ label: here, body: { kind: 'custom', ...rest }, filePointer: (p) => (p === '/kind' ? here : here + p) });
        });
      } else if (key === 'lists' && Array.isArray(v)) {
        for (const l of v) {
          if (!isObj(l) || typeof l['name'] !== 'string') continue;
          const kind = typeof l['kind'] === 'string' ? (l['kind'] as ListKind) : 'ip';
          (lists ??= {})[l['name']] = { kind, items: Array.isArray(l['items']) ? l['items'].map((x) => (isObj(x) && 'value' in x ? x['value'] : x)) : [] };
        }
      }
    }
  }
  if (!rulesets.length && !lists) return undefined;
  return { tool: 'octorules', rulesets, ...(lists ? { lists } : {}) };
}

/** camelCase → snake_case, for Crossplane's members. */
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A Crossplane `Ruleset` resource: its rules' expressions in a ruleset of its phase. */
function crossplane(value: Record<string, unknown>): ToolFile | undefined {
  if (value['kind'] !== 'Ruleset' || typeof value['apiVersion'] !== 'string' || !/cloudflare/.test(value['apiVersion']) || !/crossplane/.test(value['apiVersion'])) return undefined;
  const spec = isObj(value['spec']) ? value['spec'] : undefined;
  const p = spec && isObj(spec['forProvider']) ? (spec['forProvider'] as Record<string, unknown>) : undefined;
  if (!p || !Array.isArray(p['rules'])) return undefined;
  // Only what the expressions need goes into the body: the members are Crossplane's (camelCase), their
  // shapes its CRD's, which rulekit does not model; the phase and each rule's action and expression are the API's.
  const rules = p['rules'].map((r) => (isObj(r) ? Object.fromEntries(Object.entries(r).filter(([k]) => k === 'action' || k === 'expression' || k === 'enabled').map(([k, x]) => [snake(k), x])) : r));
  const body: Record<string, unknown> = { rules };
  if (typeof p['phase'] === 'string') body['phase'] = p['phase'];
  return { tool: 'crossplane', rulesets: [{ label: '/spec/forProvider', body, filePointer: (q) => `/spec/forProvider${q}` }] };
}

/** Read a parsed YAML document as a tool's file, if it is one. */
export function toolFile(value: unknown): ToolFile | undefined {
  if (!isObj(value)) return undefined;
  return crossplane(value) ?? octorules(value);
}
