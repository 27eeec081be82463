/**
 * The playground's parts that need no browser: the language's token styles (every token type of the
 * vocabulary has one), the state's round trip through the URL, quick fixes applied at a moved span and
 * inside JSON strings, the packet table's typing, and the capture summary computed as the page does it
 * against rulekit/node's.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EditorState } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { allTokens } from '../../src/expression/tokens.js';
import { compileExpression, validateRuleset } from '../../src/index.js';
import { parseJsonText } from '../../src/json/index.js';
import { runSimulation } from '../../src/simulation/index.js';
import {
  decodeState,
  defaultState,
  encodeState,
  expressionStringAt,
  fixAction,
  mergeState,
  packetOf,
  placeInDocument,
  rulesOf,
  runExpression,
  runLogFilter,
  runRuleset,
  simulateCapture,
  parseLists,
  STYLE_BY_CATEGORY,
  styleOf,
  styleSpans,
  type PlaygroundState,
} from '../../src/playground/index.js';

describe('the expression language: styles from the lexer\'s tokens', () => {
  it('every token type the lexer produces has a style (by its name or its category)', () => {
    const categories = new Set(Object.keys(STYLE_BY_CATEGORY).concat(['Value', 'AnyValue']));
    const produced = allTokens.filter((t) => !categories.has(t.name));
    const unstyled = produced.filter((t) => styleOf({ image: 'x', startOffset: 0, endOffset: 0, tokenType: t as never }, undefined) === undefined).map((t) => t.name);
    expect(unstyled).toEqual([]);
  });

  it('styles each kind of token of an expression', () => {
    const text = 'bit_slice(tcp, 0, 8) == 1 and ip.src in $svc.anonymizer or not http.host contains "x" && ip.dst in {10.0.0.0/8 1.2.3.4} and tcp.dstport in {80..90}';
    const spans = styleSpans(text).map((s) => [text.slice(s.start, s.end), s.style]);
    expect(spans).toEqual(
      expect.arrayContaining([
        ['bit_slice', 'function'],
        ['tcp', 'field'],
        ['==', 'compare'],
        ['and', 'logic'],
        ['&&', 'logic'],
        ['not', 'logic'],
        ['in', 'keyword'],
        ['contains', 'compare'],
        ['$svc.anonymizer', 'list'],
        ['"x"', 'string'],
        ['10.0.0.0/8', 'word'],
        ['80', 'number'],
        ['..', 'punctuation'],
        ['{', 'brace'],
        ['(', 'paren'],
      ]),
    );
  });

  it('an identifier is a function only when a known function is called', () => {
    expect(styleSpans('bit_slice == 1')[0]!.style).toBe('field');
    expect(styleSpans('nosuch(tcp)')[0]!.style).toBe('field');
  });
});

describe('the state in the URL', () => {
  const state = fc.record<PlaygroundState>({
    tab: fc.constantFrom('rules', 'logpush', 'capture', 'diff'),
    mode: fc.constantFrom('expression', 'ruleset'),
    phase: fc.string(),
    requests: fc.string(),
    expression: fc.string({ unit: 'binary' }),
    ruleset: fc.string(),
    lists: fc.string(),
    fields: fc.array(fc.string()),
    packets: fc.array(fc.dictionary(fc.string(), fc.string())),
    dataset: fc.string(),
    filter: fc.string({ unit: 'grapheme' }),
    lines: fc.string(),
    diffOld: fc.string(),
    diffNew: fc.string(),
  });

  it('decode(encode(state)) is the state', async () => {
    await fc.assert(
      fc.asyncProperty(state, async (s) => {
        const hash = await encodeState(s);
        expect(hash).toMatch(/^#s=v1\.[A-Za-z0-9_-]*$/);
        expect((await decodeState(hash, defaultState())).state).toEqual(s);
      }),
      { numRuns: 60 },
    );
  });

  it('a link cut short is reported and the samples are shown; a hash without state is no state', async () => {
    const hash = await encodeState(defaultState());
    expect((await decodeState(hash.slice(0, hash.length - 12), defaultState())).error).toMatch(/could not be read/);
    expect(await decodeState('#section', defaultState())).toEqual({});
    expect(await decodeState('', defaultState())).toEqual({});
  });

  it('members of the wrong type come from the defaults', () => {
    const d = defaultState();
    expect(mergeState({ tab: 'nope', expression: 42, packets: [{ a: 1 }], lines: 'x' }, d)).toEqual({ ...d, lines: 'x' });
  });
});

/** A stand-in for an EditorView: the state and dispatch, which is all a lint action uses. */
function fakeView(doc: string): EditorView & { text(): string } {
  let state = EditorState.create({ doc });
  return {
    get state() {
      return state;
    },
    dispatch(spec: Parameters<EditorState['update']>[0]) {
      state = state.update(spec).state;
    },
    text: () => state.doc.toString(),
  } as unknown as EditorView & { text(): string };
}

describe('quick fixes', () => {
  it('a fix applies at the diagnostic\'s current span (text typed before it moved it)', () => {
    const text = 'tcp.dstport in {80, 443}';
    const d = compileExpression(text).diagnostics.find((x) => x.code === 'comma-in-set')!;
    const view = fakeView(`(( ${text}`);
    fixAction(d.fix!, d.range!.start).apply(view, d.range!.start + 3, d.range!.end + 3);
    expect(view.text()).toBe('(( tcp.dstport in {80 443}');
  });

  it('an expression\'s fix inside a ruleset body edits the JSON string, and the body then validates', () => {
    const body = JSON.stringify({ name: 'x', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {80, 443} AND ip.src == 10.0.0.0/8' }] }, null, 2);
    const out = runRuleset(body, '', []);
    expect(out.diagnostics.length).toBeGreaterThan(0);
    let fixed = body;
    // Apply the fixes from the last to the first, so earlier offsets stay valid.
    for (const { placed } of [...out.diagnostics].sort((a, b) => b.placed.from - a.placed.from)) {
      expect(placed.fix).toBeDefined();
      const view = fakeView(fixed);
      fixAction(placed.fix!, placed.from).apply(view, placed.from, placed.to);
      fixed = view.text();
    }
    expect(validateRuleset(fixed).filter((d) => d.severity === 'error')).toEqual([]);
    expect(JSON.parse(fixed).rules[0].expression).toBe('tcp.dstport in {80 443} and ip.src in {10.0.0.0/8}');
  });

  it('in a string with escapes, a diagnostic covers the whole string and offers no fix (its offsets would not map)', () => {
    const body = '{"name":"x","kind":"root","phase":"network_transit","rules":[{"action":"block","expression":"http.host == \\"a\\" and tcp.dstport in {80, 443}"}]}';
    const diagnostics = validateRuleset(body);
    const d = diagnostics.find((x) => x.code === 'comma-in-set')!;
    const doc = parseJsonText(body, 64).doc!;
    const placed = placeInDocument(d, body, (p) => doc.valueRange(p));
    expect(body.slice(placed.from, placed.to)).toBe('"http.host == \\"a\\" and tcp.dstport in {80, 443}"');
    expect(placed.fix).toBeUndefined();
  });
});

describe('completion inside a ruleset body', () => {
  it('finds the expression string around the cursor, only where its offsets map one to one', () => {
    const body = '{"rules": [{"action": "block", "expression": "tcp.dstport == 22"}, {"expression": "http.host == \\"a\\""}]}';
    const at = body.indexOf('dstport');
    expect(expressionStringAt(body, at)).toEqual({ text: 'tcp.dstport == 22', start: body.indexOf('tcp.dstport') });
    expect(expressionStringAt(body, body.indexOf('"tcp.dstport'))).toBeUndefined();
    expect(expressionStringAt(body, body.indexOf('block'))).toBeUndefined();
    expect(expressionStringAt(body, body.indexOf('http.host'))).toBeUndefined();
    expect(expressionStringAt('{"rules": [', 5)).toBeUndefined();
  });
});

describe('the rules tab', () => {
  it('reads cells by the field\'s type; an empty cell is a missing field', () => {
    expect(packetOf({ 'tcp.dstport': '0x50', 'ip.src': ' 192.0.2.1 ', 'tcp.flags.syn': 'true', 'udp.dstport': '' })).toEqual({
      packet: { 'tcp.dstport': 80, 'ip.src': '192.0.2.1', 'tcp.flags.syn': true },
      problems: [],
    });
    expect(packetOf({ 'tcp.dstport': 'http', 'tcp.flags.syn': 'yes', 'no.such': '1' }).problems).toEqual([
      'tcp.dstport: "http" is not an integer',
      'tcp.flags.syn: "yes" is not true or false',
      'no.such is not a field of the network scheme',
    ]);
  });

  it('the samples: the expression matches the first packet only; the ruleset decides each with a rule', () => {
    const s = defaultState();
    expect(runExpression(s.expression, s.lists, s.packets).packets.map((p) => p.verdict)).toEqual(['match', 'no match', 'no match', 'no match']);
    const r = runRuleset(s.ruleset, s.lists, s.packets);
    expect(r.diagnostics).toEqual([]);
    expect(r.packets.map((p) => [p.verdict, p.decidedBy?.ref])).toEqual([
      ['allow', undefined],
      ['block', 'anonymizers'],
      ['allow', 'office-ssh'],
      ['block', 'no-sip'],
    ]);
  });

  it('the views: canonical form and Wireshark filter of the rule at the cursor', () => {
    const s = defaultState();
    const at = s.ruleset.indexOf('udp.dstport in {5060 5061}');
    const r = runRuleset(s.ruleset, s.lists, [], at);
    expect(r.views.title).toBe('The rule at the cursor: #4 no-sip');
    expect(runRuleset(s.ruleset, s.lists, [], s.ruleset.length).views.title).toBe('The first rule: #0 office-ssh');
    expect(r.views.canonical).toBe('udp.dstport in {5060 5061}');
    expect(r.views.wireshark).toBe('udp.dstport in {5060, 5061}');
  });

  it('an HTTP phase checks with the HTTP fields and runs over the requests list (NDJSON or HAR)', () => {
    const s = defaultState();
    const out = runExpression('http.request.uri.path contains "/admin" or http.request.method eq "POST"', s.lists, s.packets, 'http_request_firewall_custom', s.requests);
    expect(out.diagnostics).toEqual([]);
    expect(out.packets).toEqual([]);
    expect(out.requests!.map((r) => [r.label, r.verdict])).toEqual([
      ['GET https://example.com/admin/users', 'match'],
      ['POST https://example.com/login?next=%2F', 'match'],
      ['GET https://example.com/', 'no match'],
    ]);
    expect(out.views.wiresharkNote).toMatch(/not exported/);
    // A packet field in an HTTP phase, and a response field in a request phase, are rule-field-phase errors.
    expect(runExpression('tcp.dstport eq 80', '', [], 'http_request_firewall_custom', '').diagnostics.map((d) => d.diagnostic.code)).toEqual(['rule-field-phase']);
    expect(runExpression('http.response.code eq 200', '', [], 'http_request_firewall_custom', '').diagnostics.map((d) => d.diagnostic.code)).toEqual(['rule-field-phase']);
    const response = runExpression('http.response.code eq 200', '', [], 'http_response_headers_transform', s.requests);
    expect(response.requests!.map((r) => r.verdict)).toEqual(['no match', 'no match', 'match']);
    // The network phase keeps the packet table.
    expect(runExpression(s.expression, s.lists, s.packets, 'network_transit', s.requests).requests).toBeUndefined();
    const har = JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: 'https://example.com/admin' } }, { request: {} }] } });
    const fromHar = runExpression('http.request.uri.path eq "/admin"', '', [], 'http_request_firewall_custom', har);
    expect(fromHar.requests!.map((r) => r.verdict)).toEqual(['match']);
    expect(fromHar.requestProblems).toEqual(['warning: entry skipped: the request has no "method" string (/log/entries/1/request/method)']);
  });

  it('a ruleset of an HTTP phase decides each request with its terminating action', () => {
    const s = defaultState();
    const body = JSON.stringify({ name: 'w', kind: 'zone', phase: 'http_request_firewall_custom', rules: [
      { action: 'log', expression: 'http.request.method eq "POST"' },
      { action: 'block', ref: 'admin', expression: 'http.request.uri.path wildcard "/admin*"' },
      { action: 'managed_challenge', ref: 'login', expression: 'http.request.uri.path eq "/login"' },
    ] });
    const r = runRuleset(body, s.lists, s.packets, 0, s.requests);
    expect(r.diagnostics).toEqual([]);
    expect(r.requests!.map((x) => [x.verdict, x.decidedBy?.ref])).toEqual([['block', 'admin'], ['managed_challenge', 'login'], ['allow', undefined]]);
  });

  it('lists that are not JSON are reported; the expression still runs without them', () => {
    const out = runExpression('tcp.dstport == 443', '{nope', [{ 'tcp.dstport': '443' }]);
    expect(out.error).toMatch(/not JSON/);
    expect(out.packets[0]!.verdict).toBe('match');
  });
});

describe('the Logpush tab', () => {
  it('the samples: kept and dropped per line, with the explanation', () => {
    const s = defaultState();
    const out = runLogFilter(s.filter, s.dataset, s.lines + '\n\n[1]\n{bad');
    expect(out.lines.map((l) => l.kept ?? l.error)).toEqual([true, false, false, true, 'not a JSON object', expect.stringMatching(/^not JSON/)]);
    expect(out.lines[1]!.explanation!.children![0]!.expression).toBe('EdgeResponseStatus >= 500');
    expect(out.readable).toBe('EdgeResponseStatus >= 500 and (ClientRequestHost != "health.example.com" or ClientCountry in ["de", "fr"])');
  });

  it('a filter with errors judges no line', () => {
    const out = runLogFilter('{"where": {"key": "Nope", "operator": "eq", "value": 1}}', 'http_requests', '{"a": 1}');
    expect(out.diagnostics[0]!.code).toBe('filter-unknown-field');
    expect(out.lines).toEqual([{ line: 1 }]);
  });
});

describe('the capture tab', () => {
  const fixtures = join(import.meta.dirname, '..', 'fixtures', 'capture');

  it.each(['two-interfaces.pcapng', 'mixed-le-usec.pcap', 'corrupt-record.pcap'])('%s: the summary equals rulekit/node\'s', async (name) => {
    const s = defaultState();
    const bytes = new Uint8Array(readFileSync(join(fixtures, name)));
    const page = await simulateCapture(bytes, rulesOf('ruleset', s.expression, s.ruleset).rules!, s.lists);
    const node = await runSimulation(s.ruleset, join(fixtures, name), { lists: JSON.parse(s.lists), threads: 0 });
    expect(page.summary).toEqual(node.summary);
    expect(page.capture.records).toBe(node.summary!.packets);
  });

  it('a web stream of the file (what File.stream() gives) reads the same as its bytes', async () => {
    const s = defaultState();
    const bytes = new Uint8Array(readFileSync(join(fixtures, 'two-interfaces.pcapng')));
    const rules = rulesOf('expression', 'tcp.dstport == 443', '').rules!;
    const whole = await simulateCapture(bytes, rules, s.lists);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 100) c.enqueue(bytes.subarray(i, i + 100));
        c.close();
      },
    });
    expect((await simulateCapture(stream, rules, s.lists)).summary).toEqual(whole.summary);
    expect(whole.summary!.rules[0]!.decided).toBe(13);
  });

  it('rules that do not compile: the diagnostics, and no summary', async () => {
    const out = await simulateCapture(new Uint8Array(readFileSync(join(fixtures, 'two-interfaces.pcapng'))), rulesOf('expression', 'tcp.dstprt == 1', '').rules!, '');
    expect(out.summary).toBeUndefined();
    expect(out.diagnostics[0]!.message).toContain('did you mean tcp.dstport?');
    expect(rulesOf('ruleset', '', '{').error).toBe('the ruleset is not JSON');
  });
});

describe('the lists field', () => {
  it('takes lists of every kind: a bare array is an IP list, the others say their kind', () => {
    const lists = JSON.stringify({ office: ['192.0.2.0/24'], hosts: { kind: 'hostname', items: ['*.example.com'] } });
    expect(parseLists(lists).error).toBeUndefined();
    const r = runExpression('http.host in $hosts', lists, [], 'http_request_firewall_custom');
    expect(r.diagnostics.filter((d) => d.diagnostic.severity === 'error')).toEqual([]);
    expect(parseLists(JSON.stringify({ hosts: { kind: 'hostnames', items: [] } })).error).toBe('list "hosts" has kind "hostnames"; the kinds are ip, asn, hostname, redirect');
  });
});
