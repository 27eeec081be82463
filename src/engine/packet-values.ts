/**
 * Packet objects given to a simulation (in memory or as NDJSON lines) checked against the fields the
 * rules read: a value of the wrong type is treated as a missing field, and said so, instead of silently
 * never matching.
 *
 * What "missing" means: a key that is absent or `undefined`. Every comparison with a missing field is
 * false, `!=` included, and `not` of it is true, as in the service.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { IpSet, isIpAddressText } from '../net/index.js';
import { NETWORK_SCHEME, type FieldDef, type Packet, type Scheme } from '../expression/index.js';
import { rulesetDiagnostic } from '../ruleset/index.js';

/** What a value of each field type must be. */
function wrongType(def: FieldDef, v: unknown): string | undefined {
  switch (def.type) {
    case 'Int': {
      if (typeof v !== 'number') return `a ${describe(v)}, not a number`;
      if (!Number.isInteger(v)) return `${String(v)}, not a whole number`;
      // The field's domain (a bot score 0..99, an AS number 0..4294967295): the analysis never places a packet outside it.
      const lo = def.domain?.min ?? def.range?.[0] ?? Number.MIN_SAFE_INTEGER;
      const hi = def.domain?.max ?? def.range?.[1] ?? Number.MAX_SAFE_INTEGER;
      return v < lo || v > hi ? `${v}, outside ${lo}..${hi}` : undefined;
    }
    case 'Bool':
      return typeof v === 'boolean' ? undefined : `a ${describe(v)}, not true or false`;
    case 'Ip':
      if (typeof v !== 'string') return `a ${describe(v)}, not an address string`;
      return isIpAddressText(v) ? undefined : `${JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v)}, not an IPv4 or IPv6 address`;
    case 'String':
      if (def.rawHeader) return v instanceof Uint8Array ? undefined : `a ${describe(v)}, not header bytes`;
      return typeof v === 'string' ? undefined : `a ${describe(v)}, not a string`;
  }
}

/**
 * Source of the test that `v` (a variable: it is read more than once) holds a value of the field's type:
 * true exactly where {@link wrongType} finds no problem, kept beside it so the two agree. For a generated
 * decider that checks the values it loads instead of calling {@link checkPacketValues} on every packet
 * (src/diff/pair-decider.ts); `constant` places a function or class the code calls.
 */
export function validValueSource(def: FieldDef, v: string, constant: (value: unknown) => string): string {
  switch (def.type) {
    case 'Int': {
      const lo = def.domain?.min ?? def.range?.[0] ?? Number.MIN_SAFE_INTEGER;
      const hi = def.domain?.max ?? def.range?.[1] ?? Number.MAX_SAFE_INTEGER;
      return `(typeof ${v} === "number" && Number.isInteger(${v}) && ${v} >= ${lo} && ${v} <= ${hi})`;
    }
    case 'Bool':
      return `typeof ${v} === "boolean"`;
    case 'Ip':
      // Through the address memo of the sets the rules then test (the same parse as isIpAddressText).
      return `(typeof ${v} === "string" && ${constant(IpSet.isAddressText)}(${v}))`;
    case 'String':
      return def.rawHeader ? `${v} instanceof ${constant(Uint8Array)}` : `typeof ${v} === "string"`;
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v;
}

/**
 * Check the fields `fields` of one packet; returns the packet to decide on (a copy without the bad
 * values when there are any, so they count as missing) and pushes a `simulation-invalid-value` warning
 * per bad field into `out`.
 */
export function checkPacketValues(packet: Packet, fields: Iterable<string>, where: { text: string; pointer: string }, out: Diagnostic[], scheme: Scheme = NETWORK_SCHEME): Packet {
  let copy: Record<string, unknown> | undefined;
  for (const name of fields) {
    const v = packet[name];
    if (v === undefined) continue;
    const def = scheme.get(name);
    if (!def) continue;
    const problem = wrongType(def, v);
    if (problem === undefined) continue;
    out.push(
      rulesetDiagnostic('simulation-invalid-value', `${where.text}: ${name} is ${problem} (${def.type}); the field is taken as missing`, where.pointer ? `${where.pointer}/${escapePointer(name)}` : '', {
        data: { field: name, type: def.type },
      }),
    );
    (copy ??= { ...packet })[name] = undefined;
  }
  return (copy as Packet | undefined) ?? packet;
}

/** A JSON pointer token (RFC 6901). */
function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
