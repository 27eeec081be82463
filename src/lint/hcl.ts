/**
 * A position-keeping reader of the HCL that Terraform files are written in, for the parts rulekit lints:
 * blocks with their labels, attributes, and the values a rule is made of (quoted templates, heredocs,
 * objects, tuples, function calls; anything else is kept as a span of source). `@cdktf/hcl2json` (the
 * real parser, run by the Node runner) decides whether a file is valid HCL and what each string means;
 * it gives no positions, so this reader finds each string in the text and decodes it unit by unit into an
 * {@link OffsetMap}: escapes, `$${`/`%%{`, heredoc indentation, and `${…}` interpolations, which are
 * kept as {@link Interpolation}s for the checker to stand in for.
 * Pure: text in, tree out; never throws on bad input (what it cannot read becomes an `other` span).
 * @module
 */
import type { Range } from '../diagnostics/index.js';
import { OffsetMap } from './offset-map.js';

/** A `${…}` (or `%{…}`) sequence inside a template: its source span and its text. */
export interface Interpolation {
  /** Source span of the whole sequence, `${` to `}`. */
  range: Range;
  /** The source text of the sequence. */
  text: string;
  /** Offset in the decoded text where it stands. */
  at: number;
}

/** A decoded template (quoted string or heredoc). */
export interface HclTemplate {
  type: 'string' | 'heredoc';
  range: Range;
  /** Decoded text with every interpolation left out (the checker inserts stand-ins at `interpolations[i].at`). */
  map: OffsetMap;
  interpolations: Interpolation[];
  /** Heredoc only: `<<-` (indentation stripped). */
  flush?: boolean;
}

/** An HCL value as far as rulekit needs one. */
export type HclValue =
  | HclTemplate
  | { type: 'object'; range: Range; entries: HclEntry[] }
  | { type: 'tuple'; range: Range; items: HclValue[] }
  | { type: 'call'; range: Range; name: string; args: HclValue[] }
  | { type: 'other'; range: Range; text: string };

/** An attribute (`name = value`) or an object entry (`key = value`, `key: value`). */
export interface HclEntry {
  key: string;
  keyRange: Range;
  value: HclValue;
}

/** A block: `type "label" … { body }`. */
export interface HclBlock {
  type: string;
  labels: string[];
  range: Range;
  body: HclBody;
}

/** A body: attributes and blocks in source order. */
export interface HclBody {
  attributes: HclEntry[];
  blocks: HclBlock[];
}

const isIdStart = (c: string) => /[A-Za-z_]/.test(c);
const isId = (c: string) => /[A-Za-z0-9_-]/.test(c);

/** Parse HCL text into bodies and values with source ranges. */
export function parseHcl(text: string): HclBody {
  return new Reader(text).file();
}

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  file(): HclBody {
    const body = this.body();
    return body;
  }

  private peek(k = 0): string {
    return this.s[this.pos + k] ?? '';
  }

  /** Skip spaces, tabs and comments; with `newlines`, line breaks too. */
  private skip(newlines: boolean): void {
    const s = this.s;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) this.pos++;
      else if (c === '#' || (c === '/' && s[this.pos + 1] === '/')) {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else if (c === '/' && s[this.pos + 1] === '*') {
        const end = s.indexOf('*/', this.pos + 2);
        this.pos = end < 0 ? s.length : end + 2;
      } else return;
    }
  }

  private ident(): string {
    const start = this.pos;
    if (!isIdStart(this.peek())) return '';
    while (this.pos < this.s.length && isId(this.s[this.pos]!)) this.pos++;
    return this.s.slice(start, this.pos);
  }

  private body(): HclBody {
    const body: HclBody = { attributes: [], blocks: [] };
    for (;;) {
      this.skip(true);
      const c = this.peek();
      if (c === '' || c === '}') return body;
      const start = this.pos;
      const name = this.ident();
      if (!name) {
        // Not something a body holds: skip the line.
        this.skipLine();
        continue;
      }
      const keyRange = { start, end: this.pos };
      this.skip(false);
      if (this.peek() === '=' && this.peek(1) !== '=') {
        this.pos++;
        this.skip(false);
        const value = this.expression(true);
        body.attributes.push({ key: name, keyRange, value });
        continue;
      }
      const labels: string[] = [];
      for (;;) {
        this.skip(false);
        const d = this.peek();
        if (d === '"') {
          const t = this.quoted();
          labels.push(t.map.text);
        } else if (isIdStart(d)) labels.push(this.ident());
        else break;
      }
      if (this.peek() === '{') {
        this.pos++;
        const inner = this.body();
        if (this.peek() === '}') this.pos++;
        body.blocks.push({ type: name, labels, range: { start, end: this.pos }, body: inner });
      } else this.skipLine();
    }
  }

  private skipLine(): void {
    while (this.pos < this.s.length && this.s[this.pos] !== '\n') this.pos++;
  }

  /**
   * A value. `lineEnds`: a line break at depth 0 ends it (attributes); otherwise (inside brackets and
   * parentheses) only `,` and closing brackets do.
   */
  private expression(lineEnds: boolean): HclValue {
    const start = this.pos;
    const primary = this.primary();
    // Inside brackets and parentheses line breaks mean nothing to HCL: `{ … }` on its own lines before
    // the `]` that closes a list (the layout `terraform fmt` writes) is the list's last element.
    this.skip(!lineEnds);
    if (primary && this.atEnd(lineEnds)) return primary;
    // A longer expression (operators, conditionals, indexing): keep it as source.
    this.pos = start;
    this.skipExpression(lineEnds);
    let end = this.pos;
    while (end > start && /\s/.test(this.s[end - 1]!)) end--;
    return { type: 'other', range: { start, end }, text: this.s.slice(start, end) };
  }

  private atEnd(lineEnds: boolean): boolean {
    const c = this.peek();
    return c === '' || c === ',' || c === '}' || c === ']' || c === ')' || (lineEnds && c === '\n') || c === '#' || (c === '/' && (this.peek(1) === '/' || this.peek(1) === '*'));
  }

  private primary(): HclValue | undefined {
    const c = this.peek();
    const start = this.pos;
    if (c === '"') return this.quoted();
    if (c === '<' && this.peek(1) === '<') return this.heredoc();
    if (c === '{') return this.object();
    if (c === '[') return this.tuple();
    if (isIdStart(c)) {
      const name = this.ident();
      if (this.peek() === '(') {
        this.pos++;
        const args: HclValue[] = [];
        for (;;) {
          this.skip(true);
          if (this.peek() === ')' || this.peek() === '') break;
          args.push(this.expression(false));
          this.skip(true);
          if (this.peek() === ',') this.pos++;
          else if (this.s.startsWith('...', this.pos)) this.pos += 3;
          else if (this.peek() !== ')') return undefined;
        }
        if (this.peek() !== ')') return undefined;
        this.pos++;
        return { type: 'call', range: { start, end: this.pos }, name, args };
      }
      // A reference such as var.x or local.a.b[0]: taken whole as source.
      while (/[A-Za-z0-9_.\-*]/.test(this.peek())) this.pos++;
      return { type: 'other', range: { start, end: this.pos }, text: this.s.slice(start, this.pos) };
    }
    const num = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.pos, this.pos + 64));
    if (num) {
      this.pos += num[0].length;
      return { type: 'other', range: { start, end: this.pos }, text: num[0] };
    }
    return undefined;
  }

  private object(): HclValue {
    const start = this.pos;
    this.pos++;
    const entries: HclEntry[] = [];
    for (;;) {
      this.skip(true);
      const c = this.peek();
      if (c === '}' || c === '') break;
      const ks = this.pos;
      let key: string;
      if (c === '"') key = this.quoted().map.text;
      else if (isIdStart(c)) key = this.ident();
      else if (c === '(') {
        this.skipBalanced();
        key = this.s.slice(ks, this.pos);
      } else {
        // Something this reader does not know (a for expression): the whole object is source.
        this.pos = start;
        this.skipBalanced();
        return { type: 'other', range: { start, end: this.pos }, text: this.s.slice(start, this.pos) };
      }
      const keyRange = { start: ks, end: this.pos };
      this.skip(false);
      if (this.peek() !== '=' && this.peek() !== ':') {
        this.pos = start;
        this.skipBalanced();
        return { type: 'other', range: { start, end: this.pos }, text: this.s.slice(start, this.pos) };
      }
      this.pos++;
      this.skip(false);
      const value = this.expression(true);
      entries.push({ key, keyRange, value });
      this.skip(false);
      if (this.peek() === ',') this.pos++;
    }
    if (this.peek() === '}') this.pos++;
    return { type: 'object', range: { start, end: this.pos }, entries };
  }

  private tuple(): HclValue {
    const start = this.pos;
    this.pos++;
    const items: HclValue[] = [];
    this.skip(true);
    if (/^for\s/.test(this.s.slice(this.pos, this.pos + 4))) {
      this.pos = start;
      this.skipBalanced();
      return { type: 'other', range: { start, end: this.pos }, text: this.s.slice(start, this.pos) };
    }
    for (;;) {
      this.skip(true);
      const c = this.peek();
      if (c === ']' || c === '') break;
      const before = this.pos;
      items.push(this.expression(false));
      this.skip(true);
      if (this.peek() === ',') this.pos++;
      else if (this.pos === before) this.pos++;
    }
    if (this.peek() === ']') this.pos++;
    return { type: 'tuple', range: { start, end: this.pos }, items };
  }

  /** Skip a bracketed group starting at `pos` (`(`, `[` or `{`), strings and heredocs inside included. */
  private skipBalanced(): void {
    const open = this.peek();
    const close = open === '(' ? ')' : open === '[' ? ']' : '}';
    this.pos++;
    for (;;) {
      this.skip(true);
      const c = this.peek();
      if (c === '') return;
      if (c === close) {
        this.pos++;
        return;
      }
      if (c === '(' || c === '[' || c === '{') this.skipBalanced();
      else if (c === '"') this.quoted();
      else if (c === '<' && this.peek(1) === '<' && /^<<-?[A-Za-z_]/.test(this.s.slice(this.pos, this.pos + 4))) this.heredoc();
      else this.pos++;
    }
  }

  /** Skip an expression up to its end (see {@link expression}). */
  private skipExpression(lineEnds: boolean): void {
    for (;;) {
      this.skip(false);
      if (this.atEnd(lineEnds)) return;
      const c = this.peek();
      if (c === '\n') {
        this.pos++;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') this.skipBalanced();
      else if (c === '"') this.quoted();
      else if (c === '<' && this.peek(1) === '<' && /^<<-?[A-Za-z_]/.test(this.s.slice(this.pos, this.pos + 4))) this.heredoc();
      else this.pos++;
    }
  }

  /** A template sequence `${…}` / `%{…}` starting at `pos`: skipped to its closing brace. */
  private templateSequence(): void {
    this.pos += 2;
    let depth = 1;
    while (this.pos < this.s.length) {
      const c = this.s[this.pos]!;
      if (c === '"') {
        this.quoted();
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        this.pos++;
        return;
      }
      this.pos++;
    }
  }

  /** A quoted template `"…"` at `pos`. */
  quoted(): HclTemplate {
    const s = this.s;
    const start = this.pos;
    this.pos++;
    const map = new OffsetMap();
    map.after = this.pos;
    const interpolations: Interpolation[] = [];
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      const at = this.pos;
      if (c === '"') {
        map.after = at;
        this.pos++;
        return { type: 'string', range: { start, end: this.pos }, map, interpolations };
      }
      if (c === '\n') break; // unterminated: hcl2json reports it
      if (c === '\\') {
        const e = s[at + 1];
        const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
        if (e !== undefined && simple[e] !== undefined) {
          map.push(simple[e]!, at, at + 2);
          this.pos += 2;
          continue;
        }
        const u = e === 'u' ? /^[0-9a-fA-F]{4}/.exec(s.slice(at + 2, at + 6)) : e === 'U' ? /^[0-9a-fA-F]{8}/.exec(s.slice(at + 2, at + 10)) : null;
        if (u) {
          const cp = parseInt(u[0], 16);
          const end = at + 2 + u[0].length;
          map.push(cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD', at, end);
          this.pos = end;
          continue;
        }
        map.push(c, at, at + 1);
        this.pos++;
        continue;
      }
      if ((c === '$' || c === '%') && s[at + 1] === c && s[at + 2] === '{') {
        map.push(`${c}{`, at, at + 3);
        this.pos += 3;
        continue;
      }
      if ((c === '$' || c === '%') && s[at + 1] === '{') {
        this.templateSequence();
        interpolations.push({ range: { start: at, end: this.pos }, text: s.slice(at, this.pos), at: map.length });
        map.after = this.pos;
        continue;
      }
      // A surrogate pair is two units from two source units: verbatim.
      map.pushVerbatim(c, at);
      this.pos++;
    }
    return { type: 'string', range: { start, end: this.pos }, map, interpolations };
  }

  /** A heredoc `<<EOT` / `<<-EOT` at `pos`, to the line after its closing marker. */
  private heredoc(): HclValue {
    const s = this.s;
    const start = this.pos;
    const m = /^<<(-?)([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n/.exec(s.slice(start, start + 200));
    if (!m) {
      this.pos += 2;
      return { type: 'other', range: { start, end: this.pos }, text: '<<' };
    }
    const flush = m[1] === '-';
    const marker = m[2]!;
    let p = start + m[0].length;
    const lines: { start: number; end: number; nl: number }[] = [];
    let closed = false;
    while (p < s.length) {
      let e = s.indexOf('\n', p);
      const hasNl = e >= 0;
      if (!hasNl) e = s.length;
      const lineEnd = e > p && s[e - 1] === '\r' ? e - 1 : e;
      if (s.slice(p, lineEnd).trim() === marker) {
        this.pos = lineEnd;
        closed = true;
        break;
      }
      lines.push({ start: p, end: lineEnd, nl: hasNl ? e + 1 : e });
      p = hasNl ? e + 1 : e;
    }
    if (!closed) this.pos = s.length;
    let strip = 0;
    if (flush) {
      strip = Infinity;
      for (const l of lines) {
        const t = s.slice(l.start, l.end);
        if (t.trim() === '') continue;
        strip = Math.min(strip, /^[ \t]*/.exec(t)![0].length);
      }
      if (strip === Infinity) strip = 0;
    }
    const map = new OffsetMap();
    const interpolations: Interpolation[] = [];
    for (const l of lines) {
      const lead = /^[ \t]*/.exec(s.slice(l.start, l.end))![0].length;
      let q = l.start + Math.min(strip, lead);
      while (q < l.end) {
        const c = s[q]!;
        if ((c === '$' || c === '%') && s[q + 1] === c && s[q + 2] === '{') {
          map.push(`${c}{`, q, q + 3);
          q += 3;
          continue;
        }
        if ((c === '$' || c === '%') && s[q + 1] === '{') {
          const save = this.pos;
          this.pos = q;
          this.templateSequence();
          interpolations.push({ range: { start: q, end: this.pos }, text: s.slice(q, this.pos), at: map.length });
          q = this.pos;
          this.pos = save;
          continue;
        }
        map.pushVerbatim(c, q);
        q++;
      }
      // The line break is part of the content, as HCL's parser keeps it: a CRLF stays CRLF.
      if (l.nl > l.end) map.pushVerbatim(s.slice(l.end, l.nl), l.end);
    }
    if (lines.length === 0) map.after = start + m[0].length;
    return { type: 'heredoc', range: { start, end: this.pos }, map, interpolations, flush };
  }
}

/** The attribute of a body by name (the last one, as HCL would reject a repeat anyway). */
export function attribute(body: HclBody, name: string): HclEntry | undefined {
  let found: HclEntry | undefined;
  for (const a of body.attributes) if (a.key === name) found = a;
  return found;
}

/** The entry of an object value by key. */
export function entry(value: HclValue, key: string): HclEntry | undefined {
  if (value.type !== 'object') return undefined;
  let found: HclEntry | undefined;
  for (const e of value.entries) if (e.key === key) found = e;
  return found;
}

/** A literal string value (a template without interpolations), else undefined. */
export function literalString(value: HclValue | undefined): string | undefined {
  if (!value || (value.type !== 'string' && value.type !== 'heredoc') || value.interpolations.length) return undefined;
  return value.map.text;
}
