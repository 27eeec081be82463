/**
 * The envelope of a stored record is built around the record's stored JSON text instead of serialising
 * the record again: the bytes must be exactly those of serialising the whole envelope.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { toEnvelope } from '../../src/ruleset/index.js';
import type { FastifyReply } from 'fastify';
import { AnswerBytes, envelopeText, messagesText, sendResult } from '../../src/server/envelope.js';

const diagnostic: fc.Arbitrary<Diagnostic> = fc.record(
  {
    code: fc.constantFrom('list-not-provided', 'deprecated-field', 'server-invalid-json', 'a|b', 'a'), severity: fc.constantFrom('error', 'warning', 'info'), message: fc.constantFrom('', '|', 'x', '1|x'),
    pointer: fc.constantFrom('', '|', 'x', '/rules/1'), range: fc.record({ start: fc.nat(3), end: fc.nat(3) }), rangeIn: fc.constantFrom('value', 'document'),
    fix: fc.record({ title: fc.string(), edits: fc.constant([]) }),
  },
  { requiredKeys: ['code', 'severity', 'message'] },
) as fc.Arbitrary<Diagnostic>;

describe('envelopeText', () => {
  it('is JSON.stringify of the envelope, byte for byte, with or without the result’s JSON text given', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(diagnostic, { maxLength: 4 }), (result, diagnostics) => {
      const expected = JSON.stringify(toEnvelope(result, diagnostics));
      expect(envelopeText(result, diagnostics)).toBe(expected);
      expect(envelopeText(result, diagnostics, JSON.stringify(result))).toBe(expected);
      const frozen = diagnostics.map((d) => Object.freeze({ ...d }));
      expect(envelopeText(result, frozen, JSON.stringify(result))).toBe(expected);
      // The messages' text written before (kept beside a validation's diagnostics) gives the same bytes.
      expect(envelopeText(result, diagnostics, JSON.stringify(result), messagesText(diagnostics))).toBe(expected);
    }));
  });

  it('puts the given text in as it is (not a serialisation of the object)', () => {
    expect(envelopeText({ a: 1 }, [], '{"a":1}')).toBe('{"result":{"a":1},"success":true,"errors":[],"messages":[]}');
    expect(envelopeText({ a: 1 }, [], '{"a": 1}')).toContain('{"a": 1}');
  });
});

describe('sendResult', () => {
  /** What a reply was sent. */
  const sent = (result: unknown, diagnostics: Diagnostic[] = [], json?: string) => {
    let payload: unknown;
    const reply = { code: () => reply, type: () => reply, send: (p: unknown) => ((payload = p), reply) };
    sendResult(reply as unknown as FastifyReply, result, diagnostics, 200, json);
    return payload as string;
  };

  it('answers the envelope of the result, around its text when given, with warnings and notes as messages', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(diagnostic, { maxLength: 3 }), (result, diagnostics) => {
      const notes = diagnostics.filter((d) => d.severity !== 'error');
      const expected = JSON.stringify(toEnvelope(result, notes));
      expect(sent(result, diagnostics)).toBe(expected);
      expect(sent(result, diagnostics, JSON.stringify(result))).toBe(expected);
    }));
  });
});

describe('AnswerBytes', () => {
  it('answers the envelope of a record as bytes, the same bytes while the record’s text is the same, new ones for another text', () => {
    const answers = new AnswerBytes(2);
    const json = JSON.stringify({ id: 'a', rules: [{ expression: 'é' }] });
    const first = answers.of('a', json);
    expect(first.toString('utf8')).toBe(JSON.stringify(toEnvelope(JSON.parse(json), [])));
    expect(answers.of('a', json)).toBe(first);
    const next = JSON.stringify({ id: 'a', version: '2' });
    const second = answers.of('a', next);
    expect(second.toString('utf8')).toBe(JSON.stringify(toEnvelope(JSON.parse(next), [])));
    answers.of('b', '{}');
    answers.of('c', '{}');
    // The most recent two are kept: 'a' was made again.
    const again = answers.of('a', next);
    expect(again).not.toBe(second);
    expect(again).toEqual(second);
  });
});
