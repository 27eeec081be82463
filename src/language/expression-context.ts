/**
 * Where a cursor stands in an expression, read from the lexer's tokens before it: at the start of a
 * simple expression, after a field (an operator follows), after an operator (a value follows), after `in`,
 * inside a set, after a whole comparison, or inside a function call. The tokens are the lexer's own, so
 * completion follows the same spellings the parser accepts (the operator table in expression/operators.ts).
 * @module
 */
import type { IToken } from '@chevrotain/types';
import {
  COMPARE_OPERATORS, FUNCTIONS, IN_OPERATOR, LOGICAL_OPERATORS, NOT_OPERATOR, lex,
  type CompareOperator, type FieldDef, type FieldType, type Scheme,
} from '../expression/index.js';

/** The left-hand side being compared: a field, or a function's result. */
export interface Lhs {
  name: string;
  field?: FieldDef;
  /** Its type; undefined for an unknown field. */
  type?: FieldType;
}

/** An open function call around the cursor. */
export interface CallFrame {
  kind: 'call';
  name: string;
  /** Offset of the call's name. */
  start: number;
  /** Index of the argument being written. */
  argument: number;
}

type Frame = CallFrame | { kind: 'paren' };

/** What may come at the cursor. */
export type ExpressionContext =
  | { kind: 'start' }
  | { kind: 'argument'; call: CallFrame }
  | { kind: 'operator'; lhs: Lhs }
  /** After the first word of a two-word operator (`strict`): `op` is the operator it begins. */
  | { kind: 'strict'; lhs: Lhs; op: CompareOperator }
  | { kind: 'value'; lhs: Lhs; op: CompareOperator }
  | { kind: 'in'; lhs: Lhs }
  | { kind: 'set'; lhs: Lhs }
  | { kind: 'after' };

/** Token names of each operator family, from the operator table. */
const COMPARE_BY_TOKEN = new Map<string, CompareOperator>();
/** First words of two-word spellings (`strict` of `strict wildcard`), with the operator they begin. */
const FIRST_WORD_TOKENS = new Map<string, CompareOperator>();
for (const [op, row] of Object.entries(COMPARE_OPERATORS) as [CompareOperator, (typeof COMPARE_OPERATORS)[CompareOperator]][]) {
  row.tokens.forEach((name, i) => {
    if (row.spellings[i]!.includes(' ')) FIRST_WORD_TOKENS.set(name.split(' ')[0]!, op);
    else COMPARE_BY_TOKEN.set(name, op);
  });
}
const LOGICAL_TOKENS = new Set(Object.values(LOGICAL_OPERATORS).flatMap((r) => r.tokens));
const NOT_TOKENS = new Set(NOT_OPERATOR.tokens);
const IN_TOKENS = new Set(IN_OPERATOR.tokens);
const LITERAL_TOKENS = new Set(['IntLiteral', 'WordLiteral', 'StringLiteral', 'RawStringLiteral']);

/** The result type of a function, from its catalogued signature (`… -> Int`). */
export function returnType(name: string): FieldType | undefined {
  const sig = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name]!.signature : undefined;
  const m = sig && /->\s*(Int|Integer|String|Bytes|Ip|IP address|Bool|Boolean)\s*$/.exec(sig);
  return m ? ({ Int: 'Int', Integer: 'Int', String: 'String', Bytes: 'String', Ip: 'Ip', 'IP address': 'Ip', Bool: 'Bool', Boolean: 'Bool' } as const)[m[1] as 'Int'] : undefined;
}

/** The parameters of a catalogued function (`field: raw header`, `start_bit: Int`, …). */
export function parametersOf(signature: string): string[] {
  const open = signature.indexOf('(');
  const close = signature.lastIndexOf(')');
  if (open < 0 || close < open) return [];
  const inner = signature.slice(open + 1, close).trim();
  return inner ? inner.split(/\s*,\s*/) : [];
}

/** Lex text (never throws; lexer diagnostics do not matter here). */
export function tokensOf(text: string): IToken[] {
  return lex(text, Number.MAX_SAFE_INTEGER).tokens;
}

/** Walk the tokens and say what may come after the last one, and which calls are open. */
export function contextAfter(tokens: readonly IToken[], scheme: Scheme): { context: ExpressionContext; frames: Frame[] } {
  const frames: Frame[] = [];
  let state: ExpressionContext = { kind: 'start' };
  let lhs: Lhs | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const name = tok.tokenType.name;
    const top = frames[frames.length - 1];
    if (name === 'Identifier') {
      if (tokens[i + 1]?.tokenType.name === 'LParen') {
        frames.push({ kind: 'call', name: tok.image, start: tok.startOffset, argument: 0 });
        i++;
        state = { kind: 'start' };
        continue;
      }
      if (state.kind === 'start') {
        const field = scheme.get(tok.image);
        lhs = { name: tok.image, field, type: field?.type };
        state = { kind: 'operator', lhs };
      } else if (state.kind !== 'set') state = { kind: 'after' };
    } else if (name === 'LBracket') {
      // `x[key]` / `x[*]`: the value read is an item of x (of its items' type); inside the brackets
      // nothing is offered.
      let depth = 0;
      let j = i;
      for (; j < tokens.length; j++) {
        const t = tokens[j]!.tokenType.name;
        if (t === 'LBracket') depth++;
        else if (t === 'RBracket' && --depth === 0) break;
      }
      if (j >= tokens.length) {
        state = { kind: 'after' };
        break;
      }
      i = j;
      lhs = { name: `${lhs?.name ?? ''}[…]`, type: lhs?.field?.type ?? lhs?.type };
      state = { kind: 'operator', lhs };
    } else if (name === 'LParen') {
      frames.push({ kind: 'paren' });
      state = { kind: 'start' };
    } else if (name === 'RParen') {
      const closed = frames.pop();
      if (closed?.kind === 'call') {
        lhs = { name: `${closed.name}(…)`, type: returnType(closed.name) };
        state = { kind: 'operator', lhs };
      } else state = { kind: 'after' };
    } else if (name === 'Comma') {
      if (top?.kind === 'call' && state.kind !== 'set') {
        top.argument++;
        state = { kind: 'start' };
      }
    } else if (NOT_TOKENS.has(name) || LOGICAL_TOKENS.has(name)) {
      state = { kind: 'start' };
    } else if (COMPARE_BY_TOKEN.has(name)) {
      const op: CompareOperator = state.kind === 'strict' ? state.op : COMPARE_BY_TOKEN.get(name)!;
      state = { kind: 'value', lhs: lhs ?? { name: '' }, op };
    } else if (FIRST_WORD_TOKENS.has(name)) {
      state = { kind: 'strict', lhs: lhs ?? { name: '' }, op: FIRST_WORD_TOKENS.get(name)! };
    } else if (IN_TOKENS.has(name)) {
      state = { kind: 'in', lhs: lhs ?? { name: '' } };
    } else if (name === 'LBrace') {
      state = { kind: 'set', lhs: lhs ?? { name: '' } };
    } else if (name === 'RBrace' || name === 'ListRef') {
      state = { kind: 'after' };
    } else if (LITERAL_TOKENS.has(name)) {
      if (state.kind !== 'set') state = { kind: 'after' };
    }
  }
  const top = frames[frames.length - 1];
  if (state.kind === 'start' && top?.kind === 'call') return { context: { kind: 'argument', call: top }, frames };
  // A Bool field is a whole condition: what follows it is what follows a comparison.
  if (state.kind === 'operator' && state.lhs.type === 'Bool') return { context: { kind: 'after' }, frames };
  return { context: state, frames };
}
