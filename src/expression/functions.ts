/**
 * The function catalog: signature, docs and checking in one entry (cel-go's stdlib idea). The runtime of
 * `bit_slice` is `bitSlice` in `predicates.ts`.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type { CallNode } from './ast.js';
import { expressionDiagnostic } from './diagnostics.js';
import { readIntText } from './literals.js';
import type { FieldDef } from './scheme.js';
import type { LhsPlan } from './predicates.js';

/** One function of the language. */
export interface FunctionInfo {
  signature: string;
  doc: string;
  example: string;
  /** Check a call; returns the plan of the value it reads, or undefined (with diagnostics). */
  check(node: CallNode, field: (name: string, range: Range) => FieldDef | undefined, out: Diagnostic[]): LhsPlan | undefined;
}

/** Most bits one bit_slice reads. */
export const BIT_SLICE_MAX_BITS = 32;
/** Highest bit offset bit_slice may reach. */
export const BIT_SLICE_MAX_OFFSET = 2040;

/** Every function, by name. */
export const FUNCTIONS: Readonly<Record<string, FunctionInfo>> = {
  bit_slice: {
    signature: 'bit_slice(field: raw header, start_bit: Int, end_bit: Int) -> Int',
    doc: `Bits [start_bit, end_bit) of a raw header (ip, tcp, udp, icmp), most significant first; at most ${BIT_SLICE_MAX_BITS} bits, offsets at most ${BIT_SLICE_MAX_OFFSET}. Missing when the header is shorter.`,
    example: 'bit_slice(tcp, 104, 108) == 5',
    check(node, field, out) {
      const usage = `use bit_slice(field, start_bit, end_bit), e.g. ${this.example}`;
      if (node.args.length !== 3) {
        out.push(expressionDiagnostic('function-arguments', `bit_slice takes 3 arguments, not ${node.args.length}; ${usage}`, node.range));
        return undefined;
      }
      const [f, s, e] = node.args as [CallNode['args'][0], CallNode['args'][0], CallNode['args'][0]];
      if (f.kind !== 'field') {
        out.push(expressionDiagnostic('function-arguments', `the first argument of bit_slice is a raw header field (ip, tcp, udp, icmp)`, f.range));
        return undefined;
      }
      const def = field(f.name, f.range);
      if (!def) return undefined;
      if (!def.rawHeader) {
        out.push(expressionDiagnostic('function-arguments', `bit_slice reads raw headers (ip, tcp, udp, icmp); ${f.name} is not one`, f.range));
        return undefined;
      }
      const nums: number[] = [];
      for (const a of [s, e]) {
        const r = a.kind === 'literal' && a.form === 'int' ? readIntText(a.text) : undefined;
        if (!r || !r.ok) {
          out.push(expressionDiagnostic('function-arguments', `bit offsets of bit_slice are integers; ${usage}`, a.range));
          return undefined;
        }
        nums.push(r.value);
      }
      const [start, end] = nums as [number, number];
      if (end > BIT_SLICE_MAX_OFFSET || start >= end || end - start > BIT_SLICE_MAX_BITS) {
        out.push(
          expressionDiagnostic(
            'function-arguments',
            `bit_slice(${f.name}, ${start}, ${end}) must have start < end, at most ${BIT_SLICE_MAX_BITS} bits (has ${Math.max(0, end - start)}) and end at most ${BIT_SLICE_MAX_OFFSET}`,
            { start: s.range.start, end: e.range.end },
            { data: { start, end, maxBits: BIT_SLICE_MAX_BITS, maxOffset: BIT_SLICE_MAX_OFFSET } },
          ),
        );
        return undefined;
      }
      return { kind: 'bit_slice', field: def, start, end };
    },
  },
};
