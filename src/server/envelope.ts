/**
 * Answers in the service's envelope `{result, success, errors, messages}`: diagnostics become entries
 * `{code, message, source: {pointer}}` through the same `toEnvelope` the CLI prints.
 * @module
 */
import type { FastifyReply } from 'fastify';
import type { Diagnostic } from '../diagnostics/index.js';
import { toEnvelope } from '../ruleset/index.js';
import { SERVER_CODES, type ServerCode } from './codes.js';

/** A diagnostic of the server's own. */
export function serverDiagnostic(code: ServerCode, message: string, pointer?: string): Diagnostic {
  const d: Diagnostic = { code, severity: 'error', message };
  if (pointer !== undefined) d.pointer = pointer;
  return d;
}

/**
 * Answer a result, with any warnings as messages. `json`, when given, is the result's JSON text
 * (`JSON.stringify(result)`, byte for byte: a record's text as the store holds it), sent as it is
 * rather than serialising the result again.
 */
export function sendResult(reply: FastifyReply, result: unknown, diagnostics: readonly Diagnostic[] = [], status = 200, json?: string, messages?: string): FastifyReply {
  reply.code(status).type('application/json; charset=utf-8');
  return reply.send(envelopeText(result, diagnostics.filter((d) => d.severity !== 'error'), json, messages));
}

/**
 * The envelope of a result as JSON text: `JSON.stringify(toEnvelope(result, messages))`, byte for byte,
 * with `json` as the result's text when given, and `messagesJson` as the messages' text when given
 * (`messagesText(messages)`, kept by the caller for diagnostics it answers again and again).
 */
export function envelopeText(result: unknown, messages: readonly Diagnostic[], json?: string, messagesJson?: string): string {
  if (json === undefined || messages.some((d) => d.severity === 'error')) return JSON.stringify(toEnvelope(result, messages));
  return `{"result":${json},"success":true,"errors":[],"messages":${messagesJson ?? messagesText(messages)}}`;
}

/** The JSON text of the envelope's `messages` for these diagnostics (their warnings and notes; errors are left out). */
export function messagesText(diagnostics: readonly Diagnostic[]): string {
  const messages = diagnostics.filter((d) => d.severity !== 'error');
  return messages.length ? JSON.stringify(toEnvelope(null, messages).messages) : '[]';
}

/**
 * The bytes of the envelopes answering records without messages (a GET of a ruleset), by the record's
 * id, for one server (it dies with it): a record read again and again comes from the store as the same
 * text, and is answered with the bytes made the first time instead of ~16 KB of text put together and
 * encoded again. The most recent `max` records are kept.
 */
export class AnswerBytes {
  private readonly byId = new Map<string, { readonly json: string; readonly bytes: Buffer }>();

  constructor(private readonly max = 256) {}

  /** `envelopeText(record, [], json)` as UTF-8 bytes, for the record of id `id` whose text is `json`. */
  of(id: string, json: string): Buffer {
    const hit = this.byId.get(id);
    if (hit && hit.json === json) return hit.bytes;
    const bytes = Buffer.from(envelopeText(undefined, [], json));
    this.byId.delete(id);
    this.byId.set(id, { json, bytes });
    if (this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value!);
    return bytes;
  }
}

/** Answer an envelope's bytes (see {@link AnswerBytes}). */
export function sendBytes(reply: FastifyReply, bytes: Buffer, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(bytes);
}

/**
 * Most errors (and, apart, most warnings) one answer lists. A body of 100,000 broken rules has as many
 * errors: listed whole, the answer was 41 MB. The client needs the first ones to fix and the count.
 */
export const MAX_ANSWERED_DIAGNOSTICS = 100;

/** The diagnostics an answer lists: at most {@link MAX_ANSWERED_DIAGNOSTICS} errors and as many others, and a last entry counting the errors left out. */
export function answeredDiagnostics(diagnostics: readonly Diagnostic[]): readonly Diagnostic[] {
  if (diagnostics.length <= MAX_ANSWERED_DIAGNOSTICS) return diagnostics;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const others = diagnostics.filter((d) => d.severity !== 'error').slice(0, MAX_ANSWERED_DIAGNOSTICS);
  if (errors.length <= MAX_ANSWERED_DIAGNOSTICS) return [...errors, ...others];
  const left = errors.length - MAX_ANSWERED_DIAGNOSTICS;
  const last = serverDiagnostic('server-errors-truncated', `and ${left} more error${left === 1 ? '' : 's'}: the first ${MAX_ANSWERED_DIAGNOSTICS} are listed; fix them and send the body again to see the rest`);
  return [...errors.slice(0, MAX_ANSWERED_DIAGNOSTICS), last, ...others];
}

/** Answer errors (and any warnings beside them) with a status; at most {@link MAX_ANSWERED_DIAGNOSTICS} of each are listed. */
export function sendErrors(reply: FastifyReply, status: number, diagnostics: readonly Diagnostic[]): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(toEnvelope(null, answeredDiagnostics(diagnostics)));
}

/** Answer one server error with the status its code has. */
export function sendError(reply: FastifyReply, code: ServerCode, message: string, pointer?: string): FastifyReply {
  return sendErrors(reply, SERVER_CODES[code].status, [serverDiagnostic(code, message, pointer)]);
}
