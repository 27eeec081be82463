/**
 * Reference pages generated from the catalogs (the checker, completion and these docs read the same
 * tables): docs/diagnostics.md (every code), docs/fields.md (fields, operators, functions) and
 * docs/datasets.md (Logpush dataset fields and the filter operators each takes).
 * `npm run docs:gen` writes them; a test keeps them current.
 */
import { DIAGNOSTIC_CODES, NETWORK_FIELDS, COMPARE_OPERATORS, LOGICAL_OPERATORS, FUNCTIONS, FUNCTIONS_SOURCE, NEWER_FUNCTIONS_SOURCE, HTTP_FIELDS, HTTP_FIELDS_SOURCE, INT_FIELD_DOMAINS, domainText, STRING_FIELD_DOMAINS, HTTP_EXTRA_FIELD_ROWS, HTTP_FIELD_PHASES, PHASE_CATALOG, MANAGED_LIST_CATALOG, MANAGED_LISTS_SOURCE, managedListsFor } from '../src/index.js';
import { EXPRESSION_CODES } from '../src/expression/codes.js';
import { LOGPUSH_CODES } from '../src/logpush/codes.js';
import { RULESET_CODES } from '../src/ruleset/codes.js';
import { CAPTURE_CODES } from '../src/capture/codes.js';
import { EXPORT_CODES } from '../src/export/codes.js';
import { HTTP_CODES } from '../src/http/codes.js';
import { LINT_CODES } from '../src/lint/codes.js';
import { ANALYSIS_CODES } from '../src/analysis/codes.js';
import { SQL_CODES } from '../src/sql/codes.js';
import { SERVER_CODES } from '../src/server/codes.js';
import { DIFF_CODES } from '../src/diff/codes.js';
import { HTTP_RECORD_SOURCES, LOGPUSH_REQUEST_FIELDS } from '../src/http/index.js';
import { ACTION_CATALOG, ACTIONS_SOURCE, KIND_CATALOG, RESPONSE_PHASES, SCHEMA_SOURCE, responseFieldPhases, type Shape } from '../src/ruleset/index.js';
import { numericCode } from '../src/ruleset/envelope.js';
import {
  ZONE_DATASETS, ACCOUNT_DATASETS, DATASET_SCOPES, DOCS_SNAPSHOT, UNFILTERABLE_FIELDS, UNFILTERABLE_TYPES, CUSTOM_FIELD_OBJECTS,
  FILTERS_PAGE_SOURCE, FILTER_LIMITATIONS_SOURCE, type Dataset,
} from '../src/logpush/datasets/index.js';
import { OPERATORS, FIELD_TYPE_LABEL, operatorSupports, FILTER_LIMITS } from '../src/logpush/operators.js';

/** docs/datasets.md: the dataset index, then every Logpush dataset field with its type and the filter operators it takes. */
function datasetsPage(): string {
  const all: Dataset[] = [...ZONE_DATASETS.values(), ...ACCOUNT_DATASETS.values()];
  const rev = (r: string) => r.slice(0, 8);
  const anchor = (d: Dataset) => `${d.scope}-${d.name}`.replace(/_/g, '-');
  const lines = [
    '# Logpush datasets: fields and the filter operators each takes',
    '',
    'Generated from the dataset catalogs (`src/logpush/datasets/`) and the operator table',
    '(`src/logpush/operators.ts`) by `npm run docs:gen`; the filter checker, completion, the SQL back end and the',
    'server read the same tables. The catalogs come from the dataset pages of',
    `${DOCS_SNAPSHOT.repo} (\`npm run datasets:refresh\`), each read at the revision given below; the operator`,
    `table and the filtering limitations from \`${FILTERS_PAGE_SOURCE.path}\` @${rev(FILTERS_PAGE_SOURCE.revision)} and`,
    `\`${FILTER_LIMITATIONS_SOURCE.path}\` @${rev(FILTER_LIMITATIONS_SOURCE.revision)}.`,
    ...(DOCS_SNAPSHOT.commit ? [`Docs snapshot: ${DOCS_SNAPSHOT.commit}${DOCS_SNAPSHOT.date ? ` (${DOCS_SNAPSHOT.date})` : ''}.`] : []),
    '',
    `A filter holds at most ${FILTER_LIMITS.maxOperators} operators and ${FILTER_LIMITS.maxBytes} bytes. \`float\` fields take no operator;`,
    `${[...UNFILTERABLE_TYPES].map((t) => `\`${FIELD_TYPE_LABEL[t]}\``).join(' and ')} fields and the fields marked "not filterable" cannot be filtered (the limitations note).`,
    `${CUSTOM_FIELD_OBJECTS.map((n) => `\`${n}\``).join(', ')} in an \`http_requests\` job's \`fields\` add the zone's custom log fields.`,
    '',
    `## Index (${ZONE_DATASETS.size} zone-scoped, ${ACCOUNT_DATASETS.size} account-scoped)`,
    '',
    'Zone-scoped datasets are pushed by `/zones/{zone_id}/logpush/jobs`, account-scoped ones by `/accounts/{account_id}/logpush/jobs`.',
    '',
    '| dataset | scope | fields | source revision |',
    '| --- | --- | --- | --- |',
    ...all.map((d) => `| [\`${d.name}\`](#${anchor(d)}) | ${d.scope} | ${d.fields.length} | ${rev(d.source.revision)} |`),
    '',
  ];
  for (const ds of all) {
    const unfilterable = UNFILTERABLE_FIELDS.get(ds.name);
    const both = (DATASET_SCOPES.get(ds.name) ?? []).length > 1;
    lines.push(
      `<a id="${anchor(ds)}"></a>`,
      '',
      `## ${ds.name} (${ds.scope}, ${ds.fields.length} fields)`,
      '',
      `${ds.title}. Source: \`${ds.source.path}\` @${ds.source.revision}.${ds.source.note ? ` ${ds.source.note}.` : ''}${both ? ' The other scope has a dataset of this name with its own fields.' : ''}`,
      '',
      '| field | type | operators | description |',
      '| --- | --- | --- | --- |',
    );
    for (const f of ds.fields) {
      const blocked = UNFILTERABLE_TYPES.has(f.type) || unfilterable?.has(f.name) === true;
      const ops = blocked ? [] : OPERATORS.filter((o) => operatorSupports(o.name, f.type)).map((o) => `\`${o.name}\``);
      const note = blocked ? ' Not filterable (public docs).' : '';
      const dep = f.deprecated ? ' Deprecated.' : '';
      lines.push(`| \`${f.name}\` | ${FIELD_TYPE_LABEL[f.type]} | ${ops.join(' ') || '–'} | ${f.description.replace(/\|/g, '\\|')}${dep}${note} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

function table(codes: Record<string, { severity: string; doc: string }>): string[] {
  return [
    '| code | number | severity | meaning |',
    '| --- | --- | --- | --- |',
    ...Object.entries(codes).map(([c, i]) => `| \`${c}\` | ${numericCode(c)} | ${i.severity} | ${i.doc.replace(/\|/g, '\\|')} |`),
  ];
}

/** docs/http-requests.md: where each field of a request record comes from, the actions, the response fields. */
function httpRequestsPage(): string {
  const responseFields = HTTP_FIELDS.filter((f) => responseFieldPhases(f.name));
  return [
    '# HTTP requests as records',
    '',
    'Generated from `HTTP_RECORD_SOURCES` (src/http/record.ts), `ACTION_CATALOG` and the response phases',
    '(src/ruleset/phases.ts) by `npm run docs:gen`. How to simulate requests: [the guide](guides/simulating-requests.md).',
    '',
    '`rulekit simulate` and `rulekit/http` read NDJSON request objects and HAR 1.2 files into one request shape',
    'and each request into a record of the HTTP fields, as the expression evaluators read them: `Array<…>`',
    'fields are arrays, `Map<…>` fields real `Map`s (header keys lower-cased; cookie names URL-decoded;',
    'argument and form names as sent), numbers for Integer and Number. A field the request does not determine',
    'is missing, never made up: bot scores, WAF scores, geolocation beyond country and AS number, TLS details',
    'and the like come only from a request\'s `fields` (HAR: `_rulekit.fields`) or, for country and AS number,',
    'from `--geoip`. A simulation builds only the fields its rules read (the summary\'s examples hold those and',
    'the fields a request gives); `requestRecord(request)` without a field set builds them all.',
    '',
    '## Where each field comes from',
    '',
    '| field | from |',
    '| --- | --- |',
    ...HTTP_RECORD_SOURCES.map(([field, from]) => `| \`${field}\` | ${from.replace(/\|/g, '\\|')} |`),
    '',
    '## Logpush http_requests lines',
    '',
    'The lines a zone pushes (`http_requests`, NDJSON) are requests too: `rulekit simulate`, `rulekit diff --against`',
    'and `rulekit test` (a `capture:` case) read a file whose first line is such a line (`ClientRequestHost`,',
    '`ClientRequestMethod`… and no `method`/`url`) as Logpush lines, each one request — NDJSON gzip-compressed or not,',
    'or Parquet rows (examples numbered by row; see',
    '[guides/simulating-requests.md](guides/simulating-requests.md#logpush-http_requests-lines)). Generated from `LOGPUSH_REQUEST_FIELDS` (src/http/logpush.ts), which a test holds against both',
    'catalogs. A rule field named by several rows needs them all (`http.request.full_uri`: scheme, host and URI). A',
    'rule field no row gives (the body, the edge\'s port), or whose Logpush field a line lacks, is missing over that',
    'line, and the simulation warns (`http-logpush-missing-field`) for each rule that reads it, with the count of',
    'lines: the logs do not decide that rule there.',
    '',
    '| Logpush field | rule fields | how |',
    '| --- | --- | --- |',
    ...LOGPUSH_REQUEST_FIELDS.map((r) => `| \`${r.logpush}\` | ${r.rule.map((f) => `\`${f}\``).join(', ')} | ${r.how} |`),
    '',
    '## Actions: which end the evaluation',
    '',
    `The "Terminating action?" column of \`${ACTIONS_SOURCE.path}\` (${ACTIONS_SOURCE.repo} at \`${ACTIONS_SOURCE.revision}\`).`,
    'A request\'s verdict is the terminating action of the first rule that matches it (a skip of the current',
    'ruleset: `allow`), or `allow` when none does; non-terminating matches are listed on the way.',
    '',
    '| action | terminating | |',
    '| --- | --- | --- |',
    ...Object.entries(ACTION_CATALOG).map(([name, a]) => `| \`${name}\` | ${a.terminating ? 'yes' : 'no'} | ${a.doc} |`),
    '',
    '## Response fields',
    '',
    `Read only in the response phases (${RESPONSE_PHASES.map((p) => `\`${p}\``).join(', ')}; the "Response phases" table`,
    'of the phases list); in any other HTTP phase they are a `rule-field-phase` error that names the phase.',
    '',
    '| field | phases |',
    '| --- | --- |',
    ...responseFields.map((f) => `| \`${f.name}\` | ${responseFieldPhases(f.name)!.length === RESPONSE_PHASES.length ? 'every response phase' : responseFieldPhases(f.name)!.map((p) => `\`${p}\``).join(', ')} |`),
    '',
  ].join('\n');
}

/** docs/diagnostics.md, docs/fields.md and docs/datasets.md. */
export function docFiles(): Record<string, string> {
  const diagnostics = [
    '# Diagnostics',
    '',
    'Every entry point returns diagnostics `{code, severity, message, range?, pointer?, rangeIn?, fix?, data?}`:',
    '`range` is a UTF-16 `[start, end)` span of the text the diagnostic is about; `pointer` an RFC 6901 JSON',
    "pointer into a JSON body; `rangeIn: 'value'` means the range is inside the string at `pointer` (an",
    'expression inside a ruleset body). `fix` carries text edits an editor can apply. The number is the',
    '`code` used in the service error envelope (`errors[].code`); the string code is in `errors[].meta.code`.',
    '',
    `Generated from the code tables (${Object.keys(DIAGNOSTIC_CODES).length} codes) by \`npm run docs:gen\`.`,
    '',
    '## Network rule expressions',
    '',
    ...table(EXPRESSION_CODES),
    '',
    '## Rulesets and simulation',
    '',
    ...table(RULESET_CODES),
    '',
    '## Logpush filters, jobs and custom log fields',
    '',
    ...table(LOGPUSH_CODES),
    '',
    '## Packet captures',
    '',
    ...table(CAPTURE_CODES),
    '',
    '## Exports (Wireshark)',
    '',
    ...table(EXPORT_CODES),
    '',
    '## HTTP requests (NDJSON request objects, HAR files)',
    '',
    ...table(HTTP_CODES),
    '',
    '## Ruleset analysis (`rulekit analyze`, `rulekit lint`, the language server)',
    '',
    ...table(ANALYSIS_CODES),
    '',
    '## SQL (`rulekit query`, `rulekit simulate --engine`)',
    '',
    ...table(SQL_CODES),
    '',
    '## Semantic diff of rulesets (docs/diff.md)',
    '',
    ...table(DIFF_CODES),
    '',
    '## `rulekit lint`: the files it reads, and suppressions',
    '',
    'Any code of this page can be suppressed on one line by a comment `# rulekit-disable-next-line CODE` on the',
    'line before it, or at a JSON pointer by the config\'s `ignore` (docs/guides/linting-in-ci.md).',
    '',
    ...table(LINT_CODES),
    '',
    '## The reference server (`rulekit serve`)',
    '',
    'Errors of the server itself, each answered with its HTTP status; a body that rulekit\'s validators reject',
    'answers 400 with their codes (above). docs/server-routes.md says which route answers which.',
    '',
    '| code | number | status | meaning |',
    '| --- | --- | --- | --- |',
    ...Object.entries(SERVER_CODES).map(([c, i]) => `| \`${c}\` | ${numericCode(c)} | ${i.status} | ${i.doc.replace(/\|/g, '\\|')} |`),
    '',
  ].join('\n');
  const fields = [
    '# Fields, phases, operators and functions of rule expressions',
    '',
    'Generated from the scheme, operator and function tables by `npm run docs:gen`.',
    '',
    '## Fields (the default network scheme)',
    '',
    '| field | type | range | meaning |',
    '| --- | --- | --- | --- |',
    ...NETWORK_FIELDS.map((f) => `| \`${f.name}\` | ${f.type} | ${f.range ? `${f.range[0]}..${f.range[1]}` : ''} | ${f.doc}${f.deprecated ? ` Deprecated: ${f.deprecated}.` : ''} |`),
    '',
    'A field that does not apply to a packet (a TCP field on a UDP packet) is missing: every comparison on it',
    'is false, `!=` included, and `not` of such a comparison is true.',
    '',
    '## Phases',
    '',
    'The catalog of phases (`PHASE_CATALOG`, src/ruleset/catalog.ts): the levels each phase exists at, the',
    'fields its expressions read and the actions its rules may take. Validation, `rulekit lint` (JSON/YAML',
    'bodies and Terraform `cloudflare_ruleset`), the server and the language server read it; each expression',
    'is checked with the field set of its ruleset\'s phase (a field of the other set is a `rule-field-phase`',
    `error). The phases are those of Cloudflare's OpenAPI schema (\`${SCHEMA_SOURCE.repo}\` \`${SCHEMA_SOURCE.path}\` at`,
    `${SCHEMA_SOURCE.revision}) and \`network_transit\`; any other phase is \`ruleset-unknown-phase\`. Where the docs`,
    'name no actions for a phase the table is generous (catalog.ts says where).',
    '',
    '| phase | levels | fields | actions | |',
    '| --- | --- | --- | --- | --- |',
    ...Object.entries(PHASE_CATALOG).map(([name, p]) => `| \`${name}\` | ${p.scopes.join(', ')} | ${p.fields === 'http' ? '[HTTP](#fields-of-the-http-phases)' : '[network](#fields-the-default-network-scheme)'} | ${p.actions.length === Object.keys(ACTION_CATALOG).length ? 'every action' : p.actions.map((a) => `\`${a}\``).join(' ')} | ${p.doc} |`),
    '',
    '### Kinds',
    '',
    '| kind | levels | entry point | |',
    '| --- | --- | --- | --- |',
    ...Object.entries(KIND_CATALOG).map(([name, k]) => `| \`${name}\` | ${k.scopes.join(', ')} | ${k.entryPoint ? 'yes: one per phase and level' : 'no'} | ${k.doc} |`),
    '',
    '### Actions and their `action_parameters`',
    '',
    'Members of the wrong JSON type, and required members missing (**bold**), are `rule-action-parameters`',
    'errors; a member the table does not have is a `rule-action-parameter-unknown` warning (the API may be',
    'ahead of the schema rulekit read).',
    '',
    '| action | terminating | action_parameters | |',
    '| --- | --- | --- | --- |',
    ...Object.entries(ACTION_CATALOG).map(([name, a]) => {
      const shape = a.parameters as Shape;
      const members = Object.entries(shape.members ?? {}).map(([m, s]) => ((shape.required ?? []).includes(m) ? `**\`${m}\`** ${s.type}` : `\`${m}\` ${s.type}`));
      return `| \`${name}\` | ${a.terminating ? 'yes' : 'no'} | ${members.length ? `${members.join(', ')}${shape.minMembers ? ' (at least one)' : ''}` : 'none'} | ${a.doc} |`;
    }),
    '',
    '## Fields of the HTTP phases',
    '',
    `${HTTP_FIELDS.length} fields, from \`${HTTP_FIELDS_SOURCE.path}\` of ${HTTP_FIELDS_SOURCE.repo} at`,
    `\`${HTTP_FIELDS_SOURCE.revision}\` (src/expression/http-fields.ts), with ${HTTP_EXTRA_FIELD_ROWS.map(([n]) => `\`${n}\``).join(', ')}, which the`,
    `docs use outside that reference (${[...new Set(HTTP_EXTRA_FIELD_ROWS.map((r) => `\`${r[3]}\``))].join(', ')}). Every http_* phase and ddos_l7 reads`,
    'them all; the response fields only the response phases ([docs/http-requests.md](http-requests.md#response-fields)), and',
    `${Object.entries(HTTP_FIELD_PHASES).map(([n, o]) => `\`${n}\` only ${o.where}`).join(', ')}, as their rows say (\`HTTP_FIELD_PHASES\`; \`rule-field-phase\` elsewhere).`,
    '`Integer` and `Number` are Int, `Bytes` is read as String. What is checked and what is not:',
    '',
    '- Fields of type String, Int, Bool and Ip, with the operators, sets and lists of the network fields;',
    '  Int literals are 64-bit (`cf.threat_score gt 9223372036854775807` is valid and compared exactly).',
    '- A whole-expression `true` is valid (it matches every request; info `matches-everything`).',
    '- `Array<…>` and `Map<…>` fields are read with `[ ]` (`http.request.headers["host"][0]`: a Map key in',
    '  quotes, an Array position) and `[*]` (every item). A missing key or position is a missing value: its',
    '  comparisons are false, `not` of them true. After `[*]` a comparison gives one boolean per item, a',
    '  condition only inside `any(…)` / `all(…)` (`and`/`or`/`not` combine such arrays item by item); a',
    '  function called on `x[*]` is called per item and gives an array, unpacked again with `[*]`:',
    '  `any(lower(http.request.headers.names[*])[*] == "x-debug")`. Such a field compared as a whole is a',
    '  `container-field` error.',
    '- The functions below, with their documented restrictions (see [Functions](#functions)).',
    '',
    '| field | type | meaning |',
    '| --- | --- | --- |',
    ...HTTP_FIELDS.map((f) => `| \`${f.name}\` | ${f.container ?? f.type} | ${f.doc}${f.deprecated ? ` Deprecated: ${f.deprecated}.` : ''} |`),
    '',
    '## Domains of the Int fields',
    '',
    'The values each Int field (or the items of an Int array or map) can hold (`INT_FIELD_DOMAINS`,',
    'src/expression/field-domains.ts; a test holds it against both field tables). The analysis and the',
    'semantic diff reason within them (`ip.src.asnum lt 100` is `ip.src.asnum 0..99`; a change that touches',
    'only values outside a domain is no change), and a simulated packet or request whose value lies outside',
    'is told so (`simulation-invalid-value`) and read as missing. A literal outside a domain is still valid',
    'in an HTTP expression (it is a `value-out-of-range` error only where the field has a range, above).',
    '',
    '| field | domain | why |',
    '| --- | --- | --- |',
    ...Object.entries(INT_FIELD_DOMAINS).map(([name, row]) => `| \`${name}\` | ${domainText(row)} | ${row.why} |`),
    '',
    '## Values of String fields with a table',
    '',
    'String fields whose values come from a known table (`STRING_FIELD_DOMAINS`,',
    'src/expression/string-domains.ts; the other country fields read the country codes too). Where the analysis',
    'or the semantic diff shows a value of such a field — a witness — it is one of the table\'s, the first the',
    'region allows (`ip.proto outside {"icmp"}` is shown with `"tcp"`); free-text fields get an arbitrary',
    'string. A closed table is every value the field holds; an open one its usual values. The analysis still',
    'reasons over every string: a region that excludes a whole closed table is reported, with another string.',
    '',
    '| field | closed | values (first ones) | why |',
    '| --- | --- | --- | --- |',
    ...Object.entries(STRING_FIELD_DOMAINS).map(([name, row]) => `| \`${name}\` | ${row.closed ? 'yes' : 'no'} | ${row.values.slice(0, 8).map((v) => `\`${v}\``).join(' ')}${row.values.length > 8 ? ` … (${row.values.length})` : ''} | ${row.why} |`),
    '',
    '## Comparison operators',
    '',
    '| operator | spellings | types | meaning |',
    '| --- | --- | --- | --- |',
    ...Object.values(COMPARE_OPERATORS).map((o) => `| \`${o.print}\` | ${o.spellings.map((s) => `\`${s}\``).join(' ')} | ${o.types.join(', ')} | ${o.doc} |`),
    '| `in {…}` | `in` | Int, String, Ip | Set membership: values, `low..high` ranges (Int, Ip), CIDRs (Ip). |',
    `| \`in $list\` | \`in\` | Ip | List membership: the [managed lists](#managed-lists) (${managedListsFor(false).map((n) => `\`$svc.${n}\``).join(', ')}; in the HTTP phases also ${managedListsFor(true).filter((n) => !managedListsFor(false).includes(n)).map((n) => `\`$svc.${n}\``).join(', ')}) and account lists. |`,
    '',
    '## Managed lists',
    '',
    "IP lists the service maintains, named after the service token (`svc` by default; `serviceToken: 'cf'`",
    `reads Cloudflare's \`$cf.open_proxies\` spelling). From \`${MANAGED_LISTS_SOURCE.path}\` of`,
    `${MANAGED_LISTS_SOURCE.repo} at \`${MANAGED_LISTS_SOURCE.revision}\` (\`MANAGED_LIST_CATALOG\`, src/expression/lists.ts).`,
    'Their items are inputs, as account lists are (`lists: { "svc.vpn": [...] }`, `rulekit simulate --lists`);',
    'without them membership is false (info `list-not-provided`). A list of the other field set is `unknown-list`.',
    '',
    '| list | type | usable in | holds |',
    '| --- | --- | --- | --- |',
    ...Object.entries(MANAGED_LIST_CATALOG).map(([name, l]) => `| \`$svc.${name}\` | ${l.type === 'ip' ? 'IP' : l.type} | ${l.fieldSets.map((f) => (f === 'http' ? 'HTTP phases' : 'network phases')).join(', ')} | ${l.doc} |`),
    '',
    '## Logical operators (loosest first)',
    '',
    '| operator | spellings |',
    '| --- | --- |',
    ...Object.values(LOGICAL_OPERATORS).map((o) => `| \`${o.print}\` | ${o.spellings.map((s) => `\`${s}\``).join(' ')} |`),
    '| `not` | `not` `!` (binds tightest) |',
    '',
    '## Functions',
    '',
    `${Object.keys(FUNCTIONS).length} functions, from \`${FUNCTIONS_SOURCE.path}\` of ${FUNCTIONS_SOURCE.repo} at`,
    `\`${FUNCTIONS_SOURCE.revision}\` (src/expression/functions.ts; bit_slice is the one function of network rules);`,
    `${NEWER_FUNCTIONS_SOURCE.functions.map((n) => `\`${n}\``).join(' and ')}, newer than that revision, from the changelog entry that added them`,
    `(${NEWER_FUNCTIONS_SOURCE.changelog}) and the published functions page.`,
    'Rewrite-only functions are refused in filters (`function-context`) and allowed with `context: \'value\'`;',
    'phase-only ones are refused when the phase is known and is not one of theirs. Arguments marked literal',
    'must be written in the expression, those marked field cannot be literals (`function-literal-argument`).',
    '',
    '| function | returns | where |',
    '| --- | --- | --- |',
    ...Object.entries(FUNCTIONS).map(([name, f]) => `| [\`${name}\`](#${name.replace(/_/g, '_')}) | ${f.signature.split(' -> ').pop()} | ${f.restriction ? `only in ${f.restriction.where}` : name === 'bit_slice' ? 'network rules' : 'any expression'} |`),
    '',
    ...Object.entries(FUNCTIONS).flatMap(([name, f]) => [
      `### \`${name}\``,
      '',
      `\`${f.signature}\``,
      '',
      f.doc,
      '',
      ...(f.params ? [`Parameters: ${f.params.map((p) => `\`${p.name}\` ${p.type}${p.literal ? ' (literal)' : ''}${p.notLiteral ? ' (field, not a literal)' : ''}${p.optional ? ' (optional)' : ''}${p.variadic ? ' (repeats)' : ''}`).join(', ')}.`, ''] : []),
      ...(f.restriction ? [`Only in ${f.restriction.where}${f.restriction.valueOnly ? ' (value expressions)' : ''}${f.restriction.phases ? ` (phases ${f.restriction.phases.map((p) => `\`${p}\``).join(', ')})` : ''}.`, ''] : []),
      `Example: \`${f.example}\``,
      '',
    ]),
  ].join('\n');
  return { 'diagnostics.md': diagnostics, 'fields.md': fields, 'datasets.md': datasetsPage(), 'http-requests.md': httpRequestsPage() };
}
