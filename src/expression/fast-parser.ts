/**
 * HAND-WRITTEN HOT PATH (bench/expression.ts shows it is needed): a recursive-descent parser of the SAME
 * grammar as the Chevrotain parser in `parser.ts`, over the same tokens, building the same AST (same
 * shapes and ranges). It handles only well-formed input: at the first token it does not expect it gives up
 * and returns undefined, and the Chevrotain parser — the grammar of record, with error recovery, its
 * messages, the railroad diagrams and content assist — parses the text instead. A property test pins that
 * both parsers build equal trees wherever this one succeeds.
 * @module
 */
import type { IToken, TokenType } from '@chevrotain/types';
import type * as A from './ast.js';
import * as T from './tokens.js';
import type { StringPayload } from './lexer.js';
import { LOGICAL_OPERATORS } from './operators.js';

const { COMPARE_TOKENS: COMPARE, NOT_AT, LOGICAL_PRECEDENCE_AT } = T;
const VALUE = new Set<TokenType>([T.IntLiteral, T.WordLiteral, T.Identifier, T.StringLiteral, T.RawStringLiteral]);

/** Thrown internally to give up; never escapes {@link fastParse}. */
const GIVE_UP = Symbol('give up');

/** Parse well-formed tokens into an AST, or return undefined (then use the Chevrotain parser). */
export function fastParse(tokens: readonly IToken[]): A.ExprNode | undefined {
  let pos = 0;
  let id = 0;
  const n = tokens.length;
  const peek = (): TokenType | undefined => (pos < n ? tokens[pos]!.tokenType : undefined);
  const fail = (): never => {
    throw GIVE_UP;
  };
  const take = (tt: TokenType): IToken => (pos < n && tokens[pos]!.tokenType === tt ? tokens[pos++]! : fail());
  const range = (t: IToken): A.NodeBase['range'] => ({ start: t.startOffset, end: t.endOffset! + 1 });

  const value = (): A.LiteralNode => {
    const t = pos < n ? tokens[pos]! : fail();
    const tt = t.tokenType;
    if (!VALUE.has(tt)) fail();
    pos++;
    const form: A.LiteralNode['form'] = tt === T.IntLiteral ? 'int' : tt === T.StringLiteral ? 'string' : tt === T.RawStringLiteral ? 'raw' : 'word';
    const node: A.LiteralNode = { kind: 'literal', id: id++, range: range(t), form, text: t.image };
    if (form === 'string' || form === 'raw') node.value = (t.payload as StringPayload | undefined)?.value ?? '';
    return node;
  };

  const literal = (): A.LiteralNode => (peek() === T.Identifier ? fail() : value());

  const argument = (): A.ArgNode => {
    const tt = peek();
    if (tt === T.Identifier || tt === T.LParen || (tt !== undefined && NOT_AT[tt.tokenTypeIdx!] === 1)) {
      const e = or();
      return e.kind === 'bare' ? e.lhs : e;
    }
    return literal();
  };

  const lhs = (): A.LhsNode => {
    const name = take(T.Identifier);
    let node: A.ValueNode;
    if (peek() !== T.LParen) node = { kind: 'field', id: id++, range: range(name), name: name.image };
    else {
      pos++;
      const args: A.ArgNode[] = [];
      if (peek() !== T.RParen) {
        for (;;) {
          args.push(argument());
          if (peek() !== T.Comma) break;
          pos++;
        }
      }
      const close = take(T.RParen);
      const nameRange = range(name);
      node = { kind: 'call', id: id++, range: { start: nameRange.start, end: close.endOffset! + 1 }, name: name.image, nameRange, args };
    }
    while (peek() === T.LBracket) {
      pos++;
      let key: A.LiteralNode | null = null;
      if (peek() === T.Star) pos++;
      else key = literal();
      const close = take(T.RBracket);
      node = { kind: 'index', id: id++, range: { start: node.range.start, end: close.endOffset! + 1 }, target: node, key };
    }
    return node;
  };

  const set = (): A.SetNode => {
    const open = take(T.LBrace);
    const items: (A.LiteralNode | A.RangeNode)[] = [];
    while (peek() !== T.RBrace) {
      const low = value();
      if (peek() === T.DotDot) {
        pos++;
        const high = value();
        items.push({ kind: 'range', id: id++, range: { start: low.range.start, end: high.range.end }, low, high });
      } else items.push(low);
    }
    const close = take(T.RBrace);
    return { kind: 'set', id: id++, range: { start: open.startOffset, end: close.endOffset! + 1 }, items };
  };

  const predicate = (): A.ExprNode => {
    const left = lhs();
    const tt = peek();
    if (tt === undefined) return { kind: 'bare', id: id++, range: left.range, lhs: left };
    const op = COMPARE.get(tt);
    if (op !== undefined) {
      const opTok = tokens[pos++]!;
      const rhs = value();
      if (peek() === T.DotDot) fail(); // range outside a set: Chevrotain reports it
      return { kind: 'compare', id: id++, range: { start: left.range.start, end: rhs.range.end }, lhs: left, op, opRange: range(opTok), rhs };
    }
    if (tt === T.Strict) {
      const strict = tokens[pos++]!;
      const wc = take(T.Wildcard);
      const rhs = value();
      return { kind: 'compare', id: id++, range: { start: left.range.start, end: rhs.range.end }, lhs: left, op: 'strict_wildcard', opRange: { start: strict.startOffset, end: wc.endOffset! + 1 }, rhs };
    }
    if (tt === T.In) {
      const inTok = tokens[pos++]!;
      let rhs: A.SetNode | A.ListNode;
      if (peek() === T.LBrace) rhs = set();
      else {
        const t = take(T.ListRef);
        rhs = { kind: 'list', id: id++, range: range(t), name: t.payload as string };
      }
      return { kind: 'in', id: id++, range: { start: left.range.start, end: rhs.range.end }, lhs: left, opRange: range(inTok), rhs };
    }
    return { kind: 'bare', id: id++, range: left.range, lhs: left };
  };

  const unary = (): A.ExprNode => {
    const tt = peek();
    if (tt !== undefined && NOT_AT[tt.tokenTypeIdx!] === 1) {
      const t = tokens[pos++]!;
      const operand = unary();
      return { kind: 'not', id: id++, range: { start: t.startOffset, end: operand.range.end }, operand };
    }
    if (tt === T.LParen) {
      const open = tokens[pos++]!;
      const expr = or();
      const close = take(T.RParen);
      return { kind: 'group', id: id++, range: { start: open.startOffset, end: close.endOffset! + 1 }, expr };
    }
    return predicate();
  };

  const binary = (next: () => A.ExprNode, op: A.LogicalOperator, precedence = LOGICAL_OPERATORS[op].precedence) => (): A.ExprNode => {
    const first = next();
    let tt = peek();
    if (tt === undefined || LOGICAL_PRECEDENCE_AT[tt.tokenTypeIdx!] !== precedence) return first;
    const operands = [first];
    while (tt !== undefined && LOGICAL_PRECEDENCE_AT[tt.tokenTypeIdx!] === precedence) {
      pos++;
      operands.push(next());
      tt = peek();
    }
    return { kind: 'logical', op, id: id++, range: { start: first.range.start, end: operands[operands.length - 1]!.range.end }, operands };
  };
  const and = binary(unary, 'and');
  const xor = binary(and, 'xor');
  const or = binary(xor, 'or');

  try {
    const ast = or();
    return pos === n ? ast : undefined;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}
