/**
 * The envelope of a stored record is built around the record's stored JSON text instead of serialising
 * the record again: the bytes must be exactly those of serialising the whole envelope.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { toEnvelope } from '../../src/ruleset/index.js';
import type { FastifyReply } from 'fastify';
import { envelopeText, sendResult } from '../../src/server/envelope.js';
import { withJsonText } from '../../src/server/store/cache.js';

const diagnostic: fc.Arbitrary<Diagnostic> = fc.record(
  {
    code: fc.constantFrom('list-not-provided', 'deprecated-field', 'server-invalid-json', 'a|b', 'a'), severity: fc.constantFrom('error', 'warning', 'info'), message: fc.constantFrom('', '|', 'x', '1|x'),
    pointer: fc.constantFrom('', '|', 'x', '/rules/1'), range: fc.record({ start: fc.nat(3), end: fc.nat(3) }), rangeIn: fc.constantFrom('value', 'document'),
    fix: fc.record({ title: fc.string(), edits: fc.constant([]) }),
  },
  { requiredKeys: ['code', 'severity', 'message'] },
) as fc.Arbitrary<Diagnostic>;

describe('envelopeText', () => {
  it('is JSON.stringify of the envelope, byte for byte, with or without the stored text of the result', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(diagnostic, { maxLength: 4 }), (result, diagnostics) => {
      const expected = JSON.stringify(toEnvelope(result, diagnostics));
      expect(envelopeText(result, diagnostics)).toBe(expected);
      expect(envelopeText(withJsonText({ ...result }, JSON.stringify(result)), diagnostics)).toBe(expected);
      // Frozen diagnostics (the validation memo's) have their entries' text kept: the same bytes, twice.
      const frozen = diagnostics.map((d) => Object.freeze({ ...d }));
      expect(envelopeText(withJsonText({ ...result }, JSON.stringify(result)), frozen)).toBe(expected);
      expect(envelopeText(withJsonText({ ...result }, JSON.stringify(result)), frozen)).toBe(expected);
    }));
  });

  it('answers lists of frozen messages that share items with the messages of each list, whatever was answered before', () => {
    const notes = [0, 1, 2].map((i) => Object.freeze({ code: 'deprecated-field', severity: 'info', message: `note ${i}`, pointer: `/rules/${i}` } as Diagnostic));
    const record = withJsonText({ a: 1 }, '{"a":1}');
    for (const list of [notes, notes, notes.slice(0, 2), [notes[0]!, notes[2]!], [notes[0]!, notes[2]!, notes[1]!], [notes[1]!], notes]) {
      expect(envelopeText(record, [...list])).toBe(JSON.stringify(toEnvelope({ a: 1 }, list)));
    }
  });

  it('puts the stored text in as it is (not a serialisation of the object)', () => {
    const record = withJsonText({ a: 1 }, '{"a":1}');
    expect(envelopeText(record, [])).toBe('{"result":{"a":1},"success":true,"errors":[],"messages":[]}');
    const marked = withJsonText({ a: 1 }, '{"a": 1}');
    expect(envelopeText(marked, [])).toContain('{"a": 1}');
  });
});

describe('sendResult', () => {
  /** What a reply was sent, as bytes, and whether it went as a Buffer. */
  const sent = (result: unknown, diagnostics: Diagnostic[] = []) => {
    let payload: unknown;
    const raw = new EventEmitter();
    const reply = { raw, code: () => reply, type: () => reply, send: (p: unknown) => ((payload = p), reply) };
    sendResult(reply as unknown as FastifyReply, result, diagnostics);
    const text = Buffer.isBuffer(payload) ? payload.toString() : (payload as string);
    // The response closes: a slab region is given back, and may be written over by the next answer.
    raw.emit('close');
    return { text, buffer: Buffer.isBuffer(payload), payload };
  };

  it('answers a record read again with the bytes of its first answer, kept from its second answer on; a record with messages as text', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(diagnostic, { maxLength: 3 }), (result, diagnostics) => {
      const record = withJsonText({ ...result }, JSON.stringify(result));
      const expected = JSON.stringify(toEnvelope(result, []));
      const answers = [sent(record), sent(record), sent(record)];
      expect(answers.map((a) => a.text)).toEqual([expected, expected, expected]);
      // The first answer in a slab region, the next ones the bytes kept for the record.
      expect(answers.map((a) => a.buffer)).toEqual([true, true, true]);
      expect(answers[1]!.payload).not.toBe(answers[0]!.payload);
      expect(answers[2]!.payload).toBe(answers[1]!.payload);
      const notes = diagnostics.filter((d) => d.severity !== 'error');
      expect(sent(record, diagnostics).text).toBe(JSON.stringify(toEnvelope(result, notes)));
      // A record without stored text is serialised every time.
      expect(sent({ ...result }).text).toBe(expected);
      expect(sent({ ...result }).buffer).toBe(false);
    }));
  });

  it('never answers the bytes of another text given to the same object', () => {
    const record = withJsonText({ a: 1 }, '{"a":1}');
    sent(record);
    expect(sent(record).text).toContain('{"a":1}');
    withJsonText(record, '{"a":2}');
    expect(sent(record).text).toContain('{"a":2}');
    expect(sent(record).text).toContain('{"a":2}');
  });
});
