// Cuts the part of Cloudflare's published OpenAPI document (cloudflare/api-schemas, openapi.json) that
// covers the paths the reference server implements, plus everything those paths reference, into
// test/fixtures/openapi/cloudflare-api-subset.json.
//
// Every path entry and component is copied as the exact bytes of the original (a slice of its text, not
// a parse and re-print: JavaScript would reorder integer-like keys and drop the document's \u003c
// escapes), one entry a line so that a refresh reads as a diff.
//
// Usage: node scripts/cut-openapi-subset.mjs <openapi.json> <commit> [out]
import { readFileSync, writeFileSync } from 'node:fs';

/** Path prefixes kept: rulesets and Logpush of accounts and zones, and the account Lists API. */
export const SELECTION = [
  '/accounts/{account_id}/rulesets',
  '/zones/{zone_id}/rulesets',
  '/accounts/{account_id}/logpush',
  '/zones/{zone_id}/logpush',
  '/accounts/{account_id}/rules/lists',
  // Two Lists operations are published with the account parameter spelled `account_identifier`.
  '/accounts/{account_identifier}/rules/lists',
];

const [, , input, commit, out = 'test/fixtures/openapi/cloudflare-api-subset.json'] = process.argv;
if (!input || !/^[0-9a-f]{40}$/.test(commit ?? '')) {
  console.error('usage: node scripts/cut-openapi-subset.mjs <openapi.json> <40-hex commit> [out]');
  process.exit(2);
}
const raw = readFileSync(input, 'utf8');

/** End offset (exclusive) of the JSON value starting at `i`. @param {number} i @returns {number} */
function valueEnd(i) {
  const c = raw[i];
  if (c === '"') return stringEnd(i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < raw.length; j++) {
      const ch = raw[j];
      if (ch === '"') j = stringEnd(j) - 1;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') if (--depth === 0) return j + 1;
    }
    throw new Error(`unterminated value at ${i}`);
  }
  const m = /^[^,}\]\s]+/.exec(raw.slice(i, i + 64));
  if (!m) throw new Error(`no JSON value at ${i}`);
  return i + m[0].length;
}
/** @param {number} i @returns {number} */
function stringEnd(i) {
  for (let j = i + 1; j < raw.length; j++) {
    if (raw[j] === '\\') j++;
    else if (raw[j] === '"') return j + 1;
  }
  throw new Error(`unterminated string at ${i}`);
}
const skipWs = (/** @type {number} */ i) => { while (/\s/.test(raw[i])) i++; return i; };

/** @typedef {{ keyText: string, start: number, text: string }} Member */
/** Members of the object at `[start, end)`: key → {key text, value text}. @param {number} start @returns {Map<string, Member>} */
function members(start) {
  /** @type {Map<string, Member>} */
  const result = new Map();
  let i = skipWs(start + 1);
  while (raw[i] !== '}') {
    const keyEnd = stringEnd(i);
    const key = JSON.parse(raw.slice(i, keyEnd));
    const v = skipWs(skipWs(keyEnd) + 1); // past ':'
    const e = valueEnd(v);
    result.set(key, { keyText: raw.slice(i, keyEnd), start: v, text: raw.slice(v, e) });
    i = skipWs(e);
    if (raw[i] === ',') i = skipWs(i + 1);
  }
  return result;
}

const top = members(skipWs(0));
/** A member of the document's top level that must be there. @param {string} key */
const required = (key) => {
  const m = top.get(key);
  if (!m) throw new Error(`the document has no "${key}"`);
  return m;
};
const paths = members(required('paths').start);
const components = members(required('components').start);
const sections = new Map([...components].map(([name, m]) => [name, members(m.start)]));

const keptPaths = [...paths].filter(([p]) => SELECTION.some((prefix) => p === prefix || p.startsWith(prefix + '/')));

// Closure over `$ref`s (and the security schemes operations name).
/** @type {Map<string, Set<string>>} */
const wanted = new Map(); // section → Set(name)
const want = (/** @type {string} */ section, /** @type {string} */ name) => {
  let set = wanted.get(section);
  if (!set) wanted.set(section, (set = new Set()));
  if (set.has(name)) return;
  const entry = sections.get(section)?.get(name);
  if (!entry) throw new Error(`#/components/${section}/${name} is referenced but not in the document`);
  set.add(name);
  visit(JSON.parse(entry.text));
};
/** @param {unknown} node @returns {void} */
function visit(node) {
  if (Array.isArray(node)) return node.forEach(visit);
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      const m = /^#\/components\/([^/]+)\/(.+)$/.exec(v);
      if (!m) throw new Error(`unexpected $ref ${v}`);
      want(/** @type {string} */ (m[1]), /** @type {string} */ (m[2]).replace(/~1/g, '/').replace(/~0/g, '~'));
    } else if (k === 'security' && Array.isArray(v)) {
      for (const req of v) for (const scheme of Object.keys(req)) want('securitySchemes', scheme);
      visit(v);
    } else visit(v);
  }
}
for (const [, m] of keptPaths) visit(JSON.parse(m.text));

const entryLines = (/** @type {Member[]} */ list) => list.map(({ keyText, text }) => `${keyText}:${text}`).join(',\n');
const source = {
  repo: 'cloudflare/api-schemas',
  path: 'openapi.json',
  commit,
  read_with: "read_file tool of the workplace's stored copy (the same commit's git blob, spot-checked against read_file)",
  selection: SELECTION,
};
const sectionText = [...sections.keys()]
  .filter((s) => wanted.has(s))
  .map((s) => `${JSON.stringify(s)}:{\n${entryLines([.../** @type {Map<string, Member>} */ (sections.get(s))].filter(([n]) => wanted.get(s)?.has(n)).map(([, m]) => m))}\n}`)
  .join(',\n');
const text =
  `{"source":${JSON.stringify(source)},\n"openapi":${required('openapi').text},\n` +
  `"paths":{\n${entryLines(keptPaths.map(([, m]) => m))}\n},\n"components":{\n${sectionText}\n}}\n`;
JSON.parse(text); // must be JSON
writeFileSync(out, text);
const ops = keptPaths.reduce((n, [, m]) => n + Object.keys(JSON.parse(m.text)).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length, 0);
console.log(`${out}: ${keptPaths.length} paths, ${ops} operations, ` +
  [...wanted].map(([s, set]) => `${set.size} ${s}`).join(', '));
