/**
 * Reads a transformer's SQL into the tree of transformer-ast.ts: a lexer and a recursive-descent parser
 * of the documented subset. What the docs list as not supported (joins, subqueries, aggregation, window
 * functions, ORDER BY, several statements) is answered `transformer-unsupported` where it is seen, not
 * a bare syntax error; anything else it cannot read is `transformer-syntax`, at the token it stopped at.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { diag } from './diag.js';
import type { SqlBinaryOp, SqlCastType, SqlExpr, SqlQuery, SqlSelect, SqlSelectItem } from './transformer-ast.js';

type TokenKind = 'ident' | 'quoted' | 'string' | 'number' | 'op' | 'eof';
interface Token { kind: TokenKind; text: string; start: number; end: number }

/** Most nesting of parentheses and operators (a breach is a diagnostic, not a stack overflow). */
export const MAX_SQL_DEPTH = 64;

/** Punctuation and operators, longest first so `->>` is read before `->` and `-`. */
const OPERATORS = ['->>', '->', '<=', '>=', '<>', '!=', '::', '||', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', '[', ']', ',', '.', ';'];

/** Words that end an expression or a select item (never read as an alias). */
const RESERVED = new Set(['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'AS', 'IS', 'IN', 'LIKE', 'ILIKE', 'BETWEEN', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END',
  'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'OFFSET', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'ON', 'UNION', 'INTERSECT', 'EXCEPT', 'WITH', 'WINDOW', 'QUALIFY']);

/** Clauses the docs list as not supported, by their first word. */
const UNSUPPORTED_CLAUSES: Record<string, string> = {
  GROUP: 'aggregation (GROUP BY)', HAVING: 'aggregation (HAVING)', ORDER: 'ORDER BY', JOIN: 'joins', INNER: 'joins', LEFT: 'joins', RIGHT: 'joins',
  FULL: 'joins', CROSS: 'joins', UNION: 'several queries (UNION)', INTERSECT: 'several queries (INTERSECT)', EXCEPT: 'several queries (EXCEPT)',
  LIMIT: 'LIMIT', OFFSET: 'OFFSET', WINDOW: 'window functions', QUALIFY: 'window functions',
};

const CAST_TYPES: Record<string, SqlCastType> = {
  VARCHAR: 'string', STRING: 'string', TEXT: 'string', CHAR: 'string', UTF8: 'string',
  INT: 'int', INTEGER: 'int', BIGINT: 'int', SMALLINT: 'int', TINYINT: 'int', INT8: 'int', INT16: 'int', INT32: 'int', INT64: 'int',
  DOUBLE: 'float', FLOAT: 'float', REAL: 'float', DECIMAL: 'float', NUMERIC: 'float', FLOAT64: 'float',
  BOOLEAN: 'bool', BOOL: 'bool', TIMESTAMP: 'timestamp',
};

class SqlError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

const fail = (code: 'transformer-syntax' | 'transformer-unsupported', message: string, range: Range): never => {
  throw new SqlError(diag(code, message, { range }));
};

function lex(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (text.startsWith('--', i)) { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) fail('transformer-syntax', 'a /* comment is never closed with */', { start: i, end: text.length });
      i = close + 2;
      continue;
    }
    const start = i;
    if (c === '\'' || c === '"') {
      // '' (or "") inside doubles the quote, as in standard SQL.
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) fail('transformer-syntax', `a ${c === '\'' ? 'string' : 'quoted name'} is never closed with ${c}`, { start, end: text.length });
        if (text[i] === c) {
          if (text[i + 1] === c) { value += c; i += 2; continue; }
          i++;
          break;
        }
        value += text[i++];
      }
      out.push({ kind: c === '\'' ? 'string' : 'quoted', text: value, start, end: i });
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (num) { i += num[0].length; out.push({ kind: 'number', text: num[0], start, end: i }); continue; }
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i, i + 400));
    if (word) { i += word[0].length; out.push({ kind: 'ident', text: word[0], start, end: i }); continue; }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) fail('transformer-syntax', `${JSON.stringify(c)} cannot stand here in a query`, { start, end: start + 1 });
    i += op!.length;
    out.push({ kind: 'op', text: op!, start, end: i });
  }
  out.push({ kind: 'eof', text: '', start: text.length, end: text.length });
  return out;
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private get peek(): Token { return this.tokens[this.pos]!; }
  private next(): Token { return this.tokens[this.pos++]!; }
  private isWord(w: string, at = 0): boolean {
    const t = this.tokens[this.pos + at];
    return t !== undefined && t.kind === 'ident' && t.text.toUpperCase() === w;
  }
  private isOp(o: string): boolean { return this.peek.kind === 'op' && this.peek.text === o; }
  private acceptWord(w: string): boolean { if (this.isWord(w)) { this.pos++; return true; } return false; }
  private acceptOp(o: string): boolean { if (this.isOp(o)) { this.pos++; return true; } return false; }
  private expected(what: string): never {
    const t = this.peek;
    return fail('transformer-syntax', `expected ${what}, found ${t.kind === 'eof' ? 'the end of the query' : JSON.stringify(t.kind === 'string' ? `'${t.text}'` : t.text)}`, { start: t.start, end: Math.max(t.end, t.start + 1) });
  }
  private expectWord(w: string): Token { if (!this.isWord(w)) this.expected(w); return this.next(); }
  private expectOp(o: string): Token { if (!this.isOp(o)) this.expected(`"${o}"`); return this.next(); }
  private name(what: string): Token {
    const t = this.peek;
    if (t.kind === 'quoted' || (t.kind === 'ident' && !RESERVED.has(t.text.toUpperCase()))) return this.next();
    return this.expected(what);
  }

  query(): SqlQuery {
    const ctes: SqlQuery['ctes'] = [];
    if (this.acceptWord('WITH')) {
      do {
        const n = this.name('the name of a WITH table');
        this.expectWord('AS');
        this.expectOp('(');
        const select = this.select();
        const close = this.expectOp(')');
        ctes.push({ name: n.text, select, range: { start: n.start, end: close.end } });
      } while (this.acceptOp(','));
    }
    const select = this.select();
    if (this.acceptOp(';') && this.peek.kind !== 'eof') fail('transformer-unsupported', 'a transformer is one SQL statement; remove what follows the ";"', { start: this.peek.start, end: this.tokens[this.tokens.length - 1]!.start });
    if (this.peek.kind !== 'eof') this.clauseOrExpected('the end of the query');
    return { ctes, select };
  }

  private clauseOrExpected(what: string): never {
    const t = this.peek;
    const clause = t.kind === 'ident' ? UNSUPPORTED_CLAUSES[t.text.toUpperCase()] : undefined;
    if (clause) fail('transformer-unsupported', `transformers do not support ${clause}: each record is transformed on its own`, { start: t.start, end: t.end });
    return this.expected(what);
  }

  private select(): SqlSelect {
    const first = this.expectWord('SELECT');
    if (this.isWord('DISTINCT')) fail('transformer-unsupported', 'transformers do not support SELECT DISTINCT: each record is transformed on its own', { start: this.peek.start, end: this.peek.end });
    const items: SqlSelectItem[] = [];
    do items.push(this.item()); while (this.acceptOp(','));
    if (!this.isWord('FROM')) this.clauseOrExpected('FROM and a Logpush dataset');
    this.next();
    if (this.isOp('(')) fail('transformer-unsupported', 'transformers do not support subqueries; use WITH … AS (…) for a step before the final SELECT', { start: this.peek.start, end: this.peek.end });
    const table = this.name('the dataset after FROM');
    const from = { name: table.text, range: { start: table.start, end: table.end } };
    // `FROM http_requests AS r` / `FROM http_requests r`: the alias only qualifies columns, which are read by name.
    if (this.acceptWord('AS')) this.name('a table alias');
    else if (this.peek.kind === 'ident' && !RESERVED.has(this.peek.text.toUpperCase())) this.next();
    if (this.isOp(',')) fail('transformer-unsupported', 'transformers do not support joins (a second table after FROM); UNNEST goes in the select list: SELECT unnest(Field) …', { start: this.peek.start, end: this.peek.end });
    let where: SqlExpr | undefined;
    if (this.acceptWord('WHERE')) where = this.expr();
    return { items, from, ...(where ? { where } : {}), range: { start: first.start, end: this.tokens[this.pos - 1]!.end } };
  }

  private item(): SqlSelectItem {
    if (this.isOp('*')) { const t = this.next(); return { kind: 'star', range: { start: t.start, end: t.end } }; }
    const expr = this.expr();
    let alias: string | undefined;
    if (this.acceptWord('AS')) alias = this.name('a name after AS').text;
    else if (this.peek.kind === 'quoted' || (this.peek.kind === 'ident' && !RESERVED.has(this.peek.text.toUpperCase()))) alias = this.next().text;
    return { kind: 'expr', expr, ...(alias !== undefined ? { alias } : {}), range: { start: expr.range.start, end: this.tokens[this.pos - 1]!.end } };
  }

  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_SQL_DEPTH) fail('transformer-syntax', `the query nests deeper than ${MAX_SQL_DEPTH} levels`, { start: this.peek.start, end: this.peek.end });
    try { return fn(); } finally { this.depth--; }
  }

  expr(): SqlExpr { return this.nested(() => this.or()); }

  private binary(op: SqlBinaryOp, left: SqlExpr, right: SqlExpr): SqlExpr {
    return { kind: 'binary', op, left, right, range: { start: left.range.start, end: right.range.end } };
  }

  private or(): SqlExpr {
    let left = this.and();
    while (this.acceptWord('OR')) left = this.binary('OR', left, this.and());
    return left;
  }

  private and(): SqlExpr {
    let left = this.not();
    while (this.acceptWord('AND')) left = this.binary('AND', left, this.not());
    return left;
  }

  private not(): SqlExpr {
    if (this.isWord('NOT')) {
      const t = this.next();
      const operand = this.nested(() => this.not());
      return { kind: 'unary', op: 'NOT', operand, range: { start: t.start, end: operand.range.end } };
    }
    return this.predicate();
  }

  private predicate(): SqlExpr {
    const left = this.additive();
    const start = left.range.start;
    const end = () => this.tokens[this.pos - 1]!.end;
    const cmp: Record<string, SqlBinaryOp> = { '=': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
    if (this.peek.kind === 'op' && cmp[this.peek.text]) {
      const op = cmp[this.next().text]!;
      return this.binary(op, left, this.additive());
    }
    if (this.acceptWord('IS')) {
      const negated = this.acceptWord('NOT');
      const t = this.peek;
      const test = t.kind === 'ident' ? t.text.toUpperCase() : '';
      if (test !== 'NULL' && test !== 'TRUE' && test !== 'FALSE') this.expected('NULL, TRUE or FALSE after IS');
      this.next();
      return { kind: 'is', operand: left, test: test as 'NULL', negated, range: { start, end: end() } };
    }
    const negated = this.isWord('NOT') && (this.isWord('IN', 1) || this.isWord('LIKE', 1) || this.isWord('ILIKE', 1) || this.isWord('BETWEEN', 1));
    if (negated) this.next();
    if (this.acceptWord('IN')) {
      this.expectOp('(');
      if (this.isWord('SELECT')) fail('transformer-unsupported', 'transformers do not support subqueries (IN (SELECT …)); list the values', { start: this.peek.start, end: this.peek.end });
      const list: SqlExpr[] = [];
      do list.push(this.expr()); while (this.acceptOp(','));
      this.expectOp(')');
      return { kind: 'in', operand: left, list, negated, range: { start, end: end() } };
    }
    if (this.isWord('LIKE') || this.isWord('ILIKE')) {
      const caseless = this.next().text.toUpperCase() === 'ILIKE';
      const pattern = this.additive();
      return { kind: 'like', operand: left, pattern, negated, caseless, range: { start, end: pattern.range.end } };
    }
    if (this.acceptWord('BETWEEN')) {
      const low = this.additive();
      this.expectWord('AND');
      const high = this.additive();
      return { kind: 'between', operand: left, low, high, negated, range: { start, end: high.range.end } };
    }
    return left;
  }

  private additive(): SqlExpr {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-') || this.isOp('||')) {
      const op = this.next().text as SqlBinaryOp;
      left = this.binary(op, left, this.multiplicative());
    }
    return left;
  }

  private multiplicative(): SqlExpr {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next().text as SqlBinaryOp;
      left = this.binary(op, left, this.unary());
    }
    return left;
  }

  private unary(): SqlExpr {
    if (this.isOp('-')) {
      const t = this.next();
      const operand = this.nested(() => this.unary());
      if (operand.kind === 'literal' && typeof operand.value === 'number') return { ...operand, value: -operand.value, range: { start: t.start, end: operand.range.end } };
      return { kind: 'unary', op: '-', operand, range: { start: t.start, end: operand.range.end } };
    }
    return this.postfix();
  }

  private postfix(): SqlExpr {
    let e = this.primary();
    for (;;) {
      if (this.acceptOp('[')) {
        const index = this.expr();
        const close = this.expectOp(']');
        e = { kind: 'index', operand: e, index, range: { start: e.range.start, end: close.end } };
      } else if (this.isOp('->') || this.isOp('->>')) {
        const op = this.next().text as '->' | '->>';
        e = this.binary(op, e, this.primary());
      } else if (this.acceptOp('::')) {
        const t = this.castType();
        e = { kind: 'cast', operand: e, type: t.type, range: { start: e.range.start, end: t.end } };
      } else return e;
    }
  }

  private castType(): { type: SqlCastType; end: number } {
    const t = this.peek;
    const type = t.kind === 'ident' ? CAST_TYPES[t.text.toUpperCase()] : undefined;
    if (!type) this.expected(`a type (${Object.keys(CAST_TYPES).join(', ')})`);
    this.next();
    // VARCHAR(64), DECIMAL(10, 2): the size does not change what the value becomes here.
    if (this.acceptOp('(')) { while (!this.isOp(')') && this.peek.kind !== 'eof') this.next(); this.expectOp(')'); }
    return { type: type!, end: this.tokens[this.pos - 1]!.end };
  }

  private primary(): SqlExpr {
    const t = this.peek;
    const range = { start: t.start, end: t.end };
    if (t.kind === 'string') { this.next(); return { kind: 'literal', value: t.text, range }; }
    if (t.kind === 'number') { this.next(); return { kind: 'literal', value: Number(t.text), ...(/[.eE]/.test(t.text) ? { float: true } : {}), range }; }
    if (t.kind === 'quoted') { this.next(); return this.qualified({ kind: 'column', name: t.text, range }); }
    if (this.acceptOp('(')) {
      if (this.isWord('SELECT')) fail('transformer-unsupported', 'transformers do not support subqueries; use WITH … AS (…) for a step before the final SELECT', { start: this.peek.start, end: this.peek.end });
      const inner = this.expr();
      const close = this.expectOp(')');
      return { ...inner, range: { start: t.start, end: close.end } };
    }
    if (this.acceptOp('[')) {
      const items: SqlExpr[] = [];
      if (!this.isOp(']')) do items.push(this.expr()); while (this.acceptOp(','));
      const close = this.expectOp(']');
      return { kind: 'array', items, range: { start: t.start, end: close.end } };
    }
    if (t.kind !== 'ident') return this.expected('a value, a field or a function');
    const upper = t.text.toUpperCase();
    if (upper === 'TRUE' || upper === 'FALSE') { this.next(); return { kind: 'literal', value: upper === 'TRUE', range }; }
    if (upper === 'NULL') { this.next(); return { kind: 'literal', value: null, range }; }
    if (upper === 'CASE') return this.caseExpr();
    if (upper === 'CAST' && this.tokens[this.pos + 1]?.text === '(') {
      this.next(); this.next();
      const operand = this.expr();
      this.expectWord('AS');
      const type = this.castType().type;
      const close = this.expectOp(')');
      return { kind: 'cast', operand, type, range: { start: t.start, end: close.end } };
    }
    if (upper === 'EXTRACT' && this.tokens[this.pos + 1]?.text === '(') {
      this.next(); this.next();
      const field = this.peek;
      if (field.kind !== 'ident' && field.kind !== 'string') this.expected('the part to extract (epoch, year, month, day, hour, minute, second…)');
      this.next();
      this.expectWord('FROM');
      const operand = this.expr();
      const close = this.expectOp(')');
      return { kind: 'extract', field: field.text.toLowerCase(), operand, range: { start: t.start, end: close.end } };
    }
    if (RESERVED.has(upper)) return this.expected('a value, a field or a function');
    this.next();
    if (this.acceptOp('(')) {
      if (this.isWord('DISTINCT')) fail('transformer-unsupported', 'transformers do not support aggregation', { start: this.peek.start, end: this.peek.end });
      const args: SqlExpr[] = [];
      if (this.isOp('*')) { const s = this.next(); args.push({ kind: 'column', name: '*', range: { start: s.start, end: s.end } }); }
      else if (!this.isOp(')')) do args.push(this.expr()); while (this.acceptOp(','));
      const close = this.expectOp(')');
      if (this.isWord('OVER')) fail('transformer-unsupported', 'transformers do not support window functions (OVER)', { start: this.peek.start, end: this.peek.end });
      return { kind: 'call', name: t.text.toLowerCase(), args, range: { start: t.start, end: close.end } };
    }
    return this.qualified({ kind: 'column', name: t.text, range });
  }

  /** `table.Field`: the qualifier names the one table, so the column is read by its own name. */
  private qualified(col: SqlExpr & { kind: 'column' }): SqlExpr {
    if (this.isOp('.') && (this.tokens[this.pos + 1]?.kind === 'ident' || this.tokens[this.pos + 1]?.kind === 'quoted')) {
      this.next();
      const t = this.next();
      return { kind: 'column', name: t.text, range: { start: col.range.start, end: t.end } };
    }
    return col;
  }

  private caseExpr(): SqlExpr {
    const start = this.next().start;
    const operand = this.isWord('WHEN') ? undefined : this.expr();
    const branches: { when: SqlExpr; then: SqlExpr }[] = [];
    while (this.acceptWord('WHEN')) {
      const when = this.expr();
      this.expectWord('THEN');
      branches.push({ when, then: this.expr() });
    }
    if (!branches.length) this.expected('WHEN');
    const otherwise = this.acceptWord('ELSE') ? this.expr() : undefined;
    const end = this.expectWord('END').end;
    return { kind: 'case', ...(operand ? { operand } : {}), branches, ...(otherwise ? { otherwise } : {}), range: { start, end } };
  }
}

/** Parse a transformer's SQL: the query, or the one diagnostic that stopped the parser. */
export function parseTransformerSql(text: string): { query: SqlQuery } | { diagnostic: Diagnostic } {
  try {
    return { query: new Parser(lex(text)).query() };
  } catch (e) {
    if (e instanceof SqlError) return { diagnostic: e.diagnostic };
    throw e;
  }
}
