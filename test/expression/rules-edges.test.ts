/**
 * Rules-language edges: what a function's literal arguments may be (each refusal names its bounds), a
 * JSON lookup on a body that is not JSON, and the cost model's laws that the evaluation order rests on.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, HTTP_SCHEME, interpret, nodeCost, type NotNode } from '../../src/expression/index.js';

// Checked without a phase: the info that names a phase-only function's phases (split, join…) is left out here.
const http = (text: string) => {
  const r = compileExpression(text, { scheme: HTTP_SCHEME });
  return { ...r, diagnostics: r.diagnostics.filter((d) => d.code !== 'function-phase-unknown') };
};

describe('literal arguments of functions', () => {
  it("split's limit is 1..128, and a refusal carries the bounds and the value", () => {
    for (const n of [1, 128]) expect(http(`any(split(http.host, ",", ${n})[*] == "a")`).diagnostics, String(n)).toEqual([]);
    for (const n of [0, 129]) {
      const d = http(`any(split(http.host, ",", ${n})[*] == "a")`).diagnostics;
      expect(d.map((x) => x.code), String(n)).toEqual(['function-arguments']);
      expect(d[0]!.data, String(n)).toEqual({ min: 1, max: 128, value: n });
      expect(d[0]!.message, String(n)).toContain(`(found ${n})`);
    }
  });

  it('the first refused literal is the one reported', () => {
    const d = http('is_timed_hmac_valid_v0("", http.request.uri, -1, http.request.timestamp.sec, 300, "x")').diagnostics;
    expect(d.map((x) => x.code)).toEqual(['function-arguments']);
    expect(d[0]!.message).toContain('key');
    expect(d[0]!.data).toBeUndefined();
    const sep = http('any(split(http.host, "", 0)[*] == "a")').diagnostics;
    expect(sep.map((x) => x.message)).toEqual(['the separator of split is a non-empty string']);
  });
});

describe('JSON lookups', () => {
  it('on a body that is not JSON, the value is missing: no evaluator throws, every comparison is false', () => {
    for (const e of ['lookup_json_string(http.request.body.raw, "a") == "b"', 'lookup_json_string(http.request.body.raw, "a") != "b"', 'lookup_json_integer(http.request.body.raw, "a") == 1']) {
      const r = http(e);
      expect(r.diagnostics, e).toEqual([]);
      for (const body of ['{', 'not json', '', '{"a": "b"', "{'a': 'b'}"]) {
        const rec = { 'http.request.body.raw': body };
        expect(r.matcher!(rec), `${e} on ${body}`).toBe(false);
        expect(interpret(r.checked!, rec), `${e} on ${body}`).toBe(false);
        expect(compileExpression(e, { scheme: HTTP_SCHEME, codegen: false }).matcher!(rec), e).toBe(false);
      }
      if (e.includes('string')) expect(r.matcher!({ 'http.request.body.raw': '{"a": "b"}' }), e).toBe(!e.includes('!='));
    }
  });
});

describe('the cost model', () => {
  it('not costs what its operand costs; a group what its expression costs', () => {
    for (const inner of ['cf.colo.name matches "a.*b"', 'tcp.dstport == 80', 'ip.src in {10.0.0.0/8}', 'tcp.flags.syn and cf.colo.name contains "x"']) {
      const r = compileExpression(`not (${inner})`);
      const not = r.checked!.ast as NotNode;
      expect(not.kind).toBe('not');
      const cost = nodeCost(r.checked!, not);
      expect(cost, inner).toBeGreaterThan(0);
      expect(cost, inner).toBe(nodeCost(r.checked!, not.operand));
      expect(cost, inner).toBe(nodeCost(compileExpression(inner).checked!, compileExpression(inner).checked!.ast));
    }
  });
});

describe('the grammar listing', () => {
  it('the railroad page draws every production of the grammar', async () => {
    const { railroadHtml } = await import('../../src/expression/grammar-doc.js');
    const { grammarProductions } = await import('../../src/expression/parser.js');
    const names = grammarProductions().map((p) => (p as { name?: string }).name!);
    expect(names).toEqual(expect.arrayContaining(['expression', 'predicate', 'set']));
    const html = railroadHtml();
    expect(html).toContain("<!DOCTYPE html>");
    for (const n of names) expect(html, n).toContain(n);
  });
});

describe('evaluateExpression', () => {
  it('is the interpreter: it agrees with the compiled matcher', async () => {
    const { evaluateExpression } = await import('../../src/expression/index.js');
    const r = compileExpression('tcp.dstport in {80 443} and not ip.src in {10.0.0.0/8}');
    for (const p of [{ 'tcp.dstport': 80, 'ip.src': '192.0.2.1' }, { 'tcp.dstport': 80, 'ip.src': '10.1.2.3' }, { 'tcp.dstport': 81 }, {}]) {
      expect(evaluateExpression(r.checked!, p), JSON.stringify(p)).toBe(r.matcher!(p));
    }
    expect(evaluateExpression(r.checked!, { 'tcp.dstport': 443, 'ip.src': '192.0.2.1' })).toBe(true);
  });
});
