/**
 * The Chevrotain grammar of network rule expressions. It is an `EmbeddedActionsParser` that builds the AST
 * in its rules (measured about 40% faster than a CST + visitor on a 125-character rule), with
 * error recovery on, so one pass reports every independent error. One parser instance is reused.
 *
 * Precedence, loosest first: `or`/`||`, `xor`/`^^`, `and`/`&&`, then `not`/`!` on the next simple
 * expression. Runs of one operator form one n-ary node.
 * @module
 */
import { createToken, EmbeddedActionsParser, EOF, type IParserErrorMessageProvider, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type * as A from './ast.js';
import * as T from './tokens.js';
import type { StringPayload } from './lexer.js';
import { expressionDiagnostic } from './diagnostics.js';

/**
 * Chevrotain's own copy of each token type of `tokens.ts` (same name, label and categories), by the
 * original's index. Chevrotain keeps a registry of the types `createToken` made and reads it when it
 * analyses a grammar, so the grammar is written over these copies, and the lexer's tokens are handed to
 * it re-typed ({@link parseTokens}); the copies are made here, when the grammar is first needed.
 */
const copies: TokenType[] = [];
/** The original of each copy. */
const originals = new Map<TokenType, TokenType>();
for (const tt of T.allTokens) {
  const categories = (tt.CATEGORIES ?? []).map((c) => copies[c.tokenTypeIdx!]!);
  const copy = createToken({ name: tt.name, pattern: tt.PATTERN, categories, ...(tt.LABEL !== undefined ? { label: tt.LABEL } : {}) });
  copies[tt.tokenTypeIdx!] = copy;
  originals.set(copy, tt);
}
/** Chevrotain's copy of a token type of tokens.ts. */
const k = (tt: TokenType): TokenType => copies[tt.tokenTypeIdx!]!;
/** The token type of tokens.ts a type the grammar saw stands for (Chevrotain's EOF stays itself). */
const original = (tt: TokenType): TokenType => originals.get(tt) ?? tt;

/** How a token type is named in messages. */
function label(tt: TokenType): string {
  switch (original(tt)) {
    case T.CompareOp: return 'an operator (==, !=, <, contains, ...)';
    case T.AndOp: return "'and'";
    case T.OrOp: return "'or'";
    case T.XorOp: return "'xor'";
    case T.NotOp: return "'not'";
    case T.Value: return 'a value';
    case T.AnyValue: return 'a value (a number, "string", address...)';
    case EOF: return 'the end of the expression';
    default: return tt.LABEL ?? tt.name;
  }
}
function shown(tok: IToken): string {
  return tok.tokenType === EOF ? 'the end of the expression' : `'${tok.image.length > 40 ? tok.image.slice(0, 40) + '…' : tok.image}'`;
}
function uniqueLabels(paths: TokenType[][]): string {
  const firsts = [...new Set(paths.map((p) => p[0]).filter((x): x is TokenType => x !== undefined).map(label))];
  if (firsts.length <= 1) return firsts[0] ?? 'something else';
  return `${firsts.slice(0, -1).join(', ')} or ${firsts[firsts.length - 1]}`;
}

const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, actual }) => `expected ${label(expected)} but found ${shown(actual)}`,
  buildNotAllInputParsedMessage: ({ firstRedundant }) =>
    `unexpected ${shown(firstRedundant)}: a condition is complete here; join conditions with 'and' / 'or'`,
  buildNoViableAltMessage: ({ expectedPathsPerAlt, actual, ruleName }) => {
    const what = ruleName === 'value' ? 'a value (a number, "string", address...)' : uniqueLabels(expectedPathsPerAlt.flat());
    return `expected ${what} but found ${shown(actual[0]!)}`;
  },
  buildEarlyExitMessage: ({ expectedIterationPaths, actual }) =>
    `expected ${uniqueLabels(expectedIterationPaths)} but found ${shown(actual[0]!)}`,
};

const NO_RANGE: Range = { start: 0, end: 0 };

class ExpressionParser extends EmbeddedActionsParser {
  private nextId = 0;
  /** Problems found while building nodes (not grammar errors). */
  buildDiagnostics: Diagnostic[] = [];
  private textLength = 0;

  constructor() {
    super(T.allTokens.map(k), { recoveryEnabled: true, errorMessageProvider: messages, maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  /** Prepare for a new parse. */
  begin(tokens: IToken[], textLength: number): void {
    this.nextId = 0;
    this.buildDiagnostics = [];
    this.textLength = textLength;
    this.input = tokens;
  }

  private id(): number {
    return this.nextId++;
  }

  private tokRange(tok: IToken): Range {
    if (Number.isNaN(tok.startOffset)) {
      // inserted by recovery: anchor at the end of the previous token
      const prev = this.LA(0);
      const at = prev && !Number.isNaN(prev.endOffset!) ? prev.endOffset! + 1 : this.textLength;
      return { start: at, end: at };
    }
    return { start: tok.startOffset, end: tok.endOffset! + 1 };
  }

  private errorNode(): A.ErrorNode {
    const la = this.LA(1);
    const at = la.tokenType === EOF || Number.isNaN(la.startOffset) ? this.textLength : la.startOffset;
    return { kind: 'error', id: this.id(), range: { start: at, end: at } };
  }

  private span(a: { range: Range } | undefined, b: { range: Range } | undefined): Range {
    return { start: a?.range.start ?? 0, end: b?.range.end ?? a?.range.end ?? 0 };
  }

  private logical(op: A.LogicalOperator, operands: A.ExprNode[]): A.LogicalNode {
    return { kind: 'logical', op, id: this.id(), range: this.span(operands[0], operands[operands.length - 1]), operands };
  }

  /** Entry rule. */
  expression = this.RULE('expression', (): A.ExprNode => this.SUBRULE(this.orExpr), {
    recoveryValueFunc: () => this.errorNode(),
  });

  private binary(ruleName: string, opToken: TokenType, op: A.LogicalOperator, next: () => A.ExprNode) {
    return this.RULE(
      ruleName,
      (): A.ExprNode => {
        const first = this.SUBRULE(next as never) as A.ExprNode;
        let operands: A.ExprNode[] | undefined;
        this.MANY(() => {
          this.CONSUME(opToken);
          const rest = this.SUBRULE2(next as never) as A.ExprNode;
          this.ACTION(() => (operands ??= [first]).push(rest));
        });
        return this.ACTION(() => (operands ? this.logical(op, operands) : first));
      },
      { recoveryValueFunc: () => this.errorNode() },
    );
  }

  private unary: () => A.ExprNode = this.RULE(
    'unary',
    (): A.ExprNode =>
      this.OR([
        {
          ALT: () => {
            const tok = this.CONSUME(k(T.NotOp));
            const operand = this.SUBRULE(this.unary);
            return this.ACTION(() => ({ kind: 'not', id: this.id(), range: { start: this.tokRange(tok).start, end: operand.range.end }, operand }) as A.NotNode);
          },
        },
        { ALT: () => this.SUBRULE(this.primary) },
      ]),
    { recoveryValueFunc: () => this.errorNode() },
  );

  private andExpr = this.binary('andExpr', k(T.AndOp), 'and', this.unary);
  private xorExpr = this.binary('xorExpr', k(T.XorOp), 'xor', this.andExpr);
  private orExpr = this.binary('orExpr', k(T.OrOp), 'or', this.xorExpr);

  private primary: () => A.ExprNode = this.RULE(
    'primary',
    (): A.ExprNode =>
      this.OR([
        {
          ALT: () => {
            const open = this.CONSUME(k(T.LParen));
            const expr = this.SUBRULE(this.orExpr);
            const close = this.CONSUME(k(T.RParen));
            return this.ACTION(() => {
              const end = Number.isNaN(close.startOffset) ? expr.range.end : close.endOffset! + 1;
              return { kind: 'group', id: this.id(), range: { start: open.startOffset, end }, expr } as A.GroupNode;
            });
          },
        },
        { ALT: () => this.SUBRULE(this.predicate) },
      ]),
    { recoveryValueFunc: () => this.errorNode() },
  );

  private predicate: () => A.ExprNode = this.RULE(
    'predicate',
    (): A.ExprNode => {
      const lhs = this.SUBRULE(this.lhs);
      let node: A.ExprNode | undefined;
      this.OPTION(() => {
        node = this.OR([
          {
            ALT: () => {
              const opTok = this.CONSUME(k(T.CompareOp));
              const rhs = this.SUBRULE(this.value);
              let high: A.LiteralNode | undefined;
              this.OPTION2(() => {
                this.CONSUME(k(T.DotDot));
                high = this.SUBRULE2(this.value);
              });
              return this.ACTION(() => {
                if (high) this.rangeOutsideSet(lhs, rhs, high);
                return this.compare(lhs, T.COMPARE_TOKENS.get(original(opTok.tokenType)) ?? 'eq', this.tokRange(opTok), rhs);
              });
            },
          },
          {
            ALT: () => {
              const strict = this.CONSUME(k(T.Strict));
              const wc = this.CONSUME(k(T.Wildcard));
              const rhs = this.SUBRULE3(this.value);
              return this.ACTION(() =>
                this.compare(lhs, 'strict_wildcard', { start: this.tokRange(strict).start, end: this.tokRange(wc).end }, rhs),
              );
            },
          },
          {
            ALT: () => {
              const inTok = this.CONSUME(k(T.In));
              const rhs = this.OR2([
                { ALT: () => this.SUBRULE(this.set) },
                {
                  ALT: () => {
                    const tok = this.CONSUME(k(T.ListRef));
                    return this.ACTION(() => ({ kind: 'list', id: this.id(), range: this.tokRange(tok), name: tok.payload as string }) as A.ListNode);
                  },
                },
                {
                  // `in 10.0.0.0/8` without braces: recover as a one-item set and say how to write it.
                  ALT: () => {
                    const v = this.SUBRULE4(this.value);
                    return this.ACTION(() => {
                      const ipLike = v.form === 'word' && /[./:]/.test(v.text);
                      this.buildDiagnostics.push(
                        expressionDiagnostic(ipLike ? 'cidr-outside-set' : 'syntax-error', `'in' takes a set in braces or a $list: use in {${v.text}}`, v.range, {
                          fix: { title: `write {${v.text}}`, edits: [{ range: v.range, newText: `{${v.text}}` }] },
                        }),
                      );
                      return { kind: 'set', id: this.id(), range: v.range, items: [v] } as A.SetNode;
                    });
                  },
                },
              ]);
              return this.ACTION(
                () => ({ kind: 'in', id: this.id(), range: this.span(lhs, rhs), lhs, opRange: this.tokRange(inTok), rhs }) as A.InNode,
              );
            },
          },
        ]);
      });
      return this.ACTION(() => node ?? ({ kind: 'bare', id: this.id(), range: lhs.range, lhs } as A.BareNode));
    },
    { recoveryValueFunc: () => this.errorNode() },
  );

  private compare(lhs: A.LhsNode, op: A.CompareOperator, opRange: Range, rhs: A.LiteralNode): A.CompareNode {
    return { kind: 'compare', id: this.id(), range: this.span(lhs, rhs), lhs, op, opRange, rhs };
  }

  private rangeOutsideSet(lhs: A.LhsNode, low: A.LiteralNode, high: A.LiteralNode): void {
    const range = { start: low.range.start, end: high.range.end };
    const name = lhs.kind === 'field' ? lhs.name : 'the value';
    this.buildDiagnostics.push(
      expressionDiagnostic('range-outside-set', `a range is only valid inside a set: use ${name} in {${low.text}..${high.text}}`, range, {
        fix: { title: `use in {${low.text}..${high.text}}`, edits: [] },
      }),
    );
  }

  private lhs: () => A.LhsNode = this.RULE('lhs', (): A.LhsNode => {
    const name = this.CONSUME(k(T.Identifier));
    let node: A.ValueNode | undefined;
    this.OPTION(() => {
      this.CONSUME(k(T.LParen));
      const args: A.ArgNode[] = [];
      this.MANY_SEP({
        SEP: k(T.Comma),
        DEF: () => {
          const arg = this.SUBRULE(this.argument);
          this.ACTION(() => args.push(arg));
        },
      });
      const close = this.CONSUME(k(T.RParen));
      this.ACTION(() => {
        const nameRange = this.tokRange(name);
        const end = Number.isNaN(close.startOffset) ? (args[args.length - 1]?.range.end ?? nameRange.end) : close.endOffset! + 1;
        node = { kind: 'call', id: this.id(), range: { start: nameRange.start, end }, name: name.image, nameRange, args };
      });
    });
    this.ACTION(() => {
      node ??= { kind: 'field', id: this.id(), range: this.tokRange(name), name: name.image } as A.FieldNode;
    });
    this.MANY(() => {
      this.CONSUME(k(T.LBracket));
      const key = this.OR([
        { ALT: () => (this.CONSUME(k(T.Star)), null) },
        { ALT: () => this.SUBRULE(this.literal) },
      ]);
      const close = this.CONSUME(k(T.RBracket));
      this.ACTION(() => {
        const target = node!;
        const end = Number.isNaN(close.startOffset) ? (key?.range.end ?? target.range.end) : close.endOffset! + 1;
        node = { kind: 'index', id: this.id(), range: { start: target.range.start, end }, target, key };
      });
    });
    return this.ACTION(() => node!);
  }, { recoveryValueFunc: (): A.FieldNode => ({ kind: 'field', id: this.id(), range: this.errorNode().range, name: '' }) });

  /**
   * A function argument: a literal, or an expression — a bare value (`http.host`, `lower(x)`, `x[*]`) is
   * the value itself; a condition (`x[*] == "a"`) is the argument of `any`/`all`.
   */
  private argument: () => A.ArgNode = this.RULE('argument', (): A.ArgNode =>
    this.OR([
      {
        ALT: () => {
          const e = this.SUBRULE(this.orExpr);
          return this.ACTION(() => (e && e.kind === 'bare' ? e.lhs : e));
        },
      },
      { ALT: () => this.SUBRULE(this.literal) },
    ]),
  { recoveryValueFunc: (): A.LiteralNode => ({ kind: 'literal', id: this.id(), range: this.errorNode().range, form: 'word', text: '' }) });

  /** A literal that is not a name: a number, a word (address, byte string...) or a string. */
  private literal: () => A.LiteralNode = this.RULE('literal', (): A.LiteralNode => {
    const tok = this.OR([
      { ALT: () => this.CONSUME(k(T.Value)) },
      { ALT: () => this.CONSUME(k(T.StringLiteral)) },
      { ALT: () => this.CONSUME(k(T.RawStringLiteral)) },
    ]);
    return this.ACTION(() => this.literalNode(tok));
  }, { recoveryValueFunc: (): A.LiteralNode => ({ kind: 'literal', id: this.id(), range: this.errorNode().range, form: 'word', text: '' }) });

  private literalNode(tok: IToken): A.LiteralNode {
    const tt = original(tok.tokenType);
    const form: A.LiteralNode['form'] = tt === T.IntLiteral ? 'int' : tt === T.StringLiteral ? 'string' : tt === T.RawStringLiteral ? 'raw' : 'word';
    const node: A.LiteralNode = { kind: 'literal', id: this.id(), range: this.tokRange(tok), form, text: tok.image };
    if (form === 'string' || form === 'raw') node.value = (tok.payload as StringPayload | undefined)?.value ?? '';
    return node;
  }

  private value: () => A.LiteralNode = this.RULE(
    'value',
    (): A.LiteralNode => {
      const tok = this.CONSUME(k(T.AnyValue));
      return this.ACTION(() => this.literalNode(tok));
    },
    { recoveryValueFunc: (): A.LiteralNode => ({ kind: 'literal', id: this.id(), range: this.errorNode().range, form: 'word', text: '' }) },
  );

  private set: () => A.SetNode = this.RULE('set', (): A.SetNode => {
    const open = this.CONSUME(k(T.LBrace));
    const items: (A.LiteralNode | A.RangeNode)[] = [];
    this.MANY(() => {
      this.OR([
        {
          ALT: () => {
            const low = this.SUBRULE(this.value);
            let high: A.LiteralNode | undefined;
            this.OPTION(() => {
              this.CONSUME(k(T.DotDot));
              high = this.SUBRULE2(this.value);
            });
            this.ACTION(() =>
              items.push(high ? { kind: 'range', id: this.id(), range: { start: low.range.start, end: high.range.end }, low, high } : low),
            );
          },
        },
        {
          ALT: () => {
            const comma = this.CONSUME(k(T.Comma));
            this.ACTION(() => {
              const r = this.tokRange(comma);
              this.buildDiagnostics.push(
                // The fix is written by parseExpression (index.ts), which sees the spaces around the comma.
                expressionDiagnostic('comma-in-set', 'set items are separated by spaces, not commas', r),
              );
            });
          },
        },
      ]);
    });
    const close = this.CONSUME(k(T.RBrace));
    return this.ACTION(() => {
      const end = Number.isNaN(close.startOffset) ? (items[items.length - 1]?.range.end ?? open.endOffset! + 1) : close.endOffset! + 1;
      return { kind: 'set', id: this.id(), range: { start: open.startOffset, end }, items };
    });
  }, { recoveryValueFunc: (): A.SetNode => ({ kind: 'set', id: this.id(), range: this.errorNode().range, items: [] }) });
}

let instance: ExpressionParser | undefined;
/** The shared parser instance (its self-analysis runs once, on first use). */
export function parserInstance(): ExpressionParser {
  return (instance ??= new ExpressionParser());
}

/** Result of {@link parseTokens}. */
export interface ParseTokensResult {
  ast: A.ExprNode;
  diagnostics: Diagnostic[];
}

/** Parse lexed tokens into an AST. Never throws. */
export function parseTokens(tokens: IToken[], textLength: number): ParseTokensResult {
  const parser = parserInstance();
  parser.begin(
    tokens.map((tok) => {
      const copy = k(tok.tokenType);
      return { ...tok, tokenType: copy, tokenTypeIdx: copy.tokenTypeIdx! };
    }),
    textLength,
  );
  let ast: A.ExprNode;
  try {
    ast = parser.expression();
  } catch (e) {
    // Defensive: the lexer's depth limit keeps recursion bounded, so this is not expected.
    return {
      ast: { kind: 'error', id: 0, range: NO_RANGE },
      diagnostics: [expressionDiagnostic('nesting-too-deep', `the expression could not be parsed: ${(e as Error).message}`, { start: 0, end: textLength })],
    };
  }
  const diagnostics: Diagnostic[] = [...parser.buildDiagnostics];
  for (const err of parser.errors) diagnostics.push(grammarDiagnostic(err, textLength));
  return { ast: ast ?? { kind: 'error', id: 0, range: NO_RANGE }, diagnostics };
}

function grammarDiagnostic(err: IRecognitionException, textLength: number): Diagnostic {
  const tok = err.token;
  const atEnd = !tok || tok.tokenType === EOF || Number.isNaN(tok.startOffset);
  const prev = (err as { previousToken?: IToken }).previousToken;
  let range: Range;
  if (!atEnd) range = { start: tok.startOffset, end: tok.endOffset! + 1 };
  else {
    const at = prev && !Number.isNaN(prev.endOffset!) ? prev.endOffset! + 1 : textLength;
    range = { start: at, end: at };
  }
  if (atEnd) return expressionDiagnostic('unexpected-end', err.message, range);
  if (err.name === 'NotAllInputParsedException') {
    const t = original(tok.tokenType);
    const operand = t === T.Identifier || t === T.LParen || t === T.NotOp || T.NOT_TOKENS.has(t);
    if (operand) {
      return expressionDiagnostic('missing-operator', `expected 'and' or 'or' before ${shown(tok)}`, range, {
        fix: { title: "insert 'and'", edits: [{ range: { start: range.start, end: range.start }, newText: 'and ' }] },
      });
    }
  }
  return expressionDiagnostic('syntax-error', err.message, range);
}

/** The grammar's productions, for the railroad diagrams and the grammar listing in `grammar/`. */
export function grammarProductions() {
  return parserInstance().getSerializedGastProductions();
}
