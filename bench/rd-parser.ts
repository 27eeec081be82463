/**
 * Baseline for the parse benchmark: a minimal hand-written recursive-descent parser of the same rule
 * language (no recovery, no positions beyond offsets, no checking) → a small AST. It marks the practical
 * limit of parsing speed in JavaScript; rulekit's parser is measured against it.
 */
export type RdNode =
  | { k: 'or' | 'and' | 'xor'; a: RdNode[] }
  | { k: 'not'; e: RdNode }
  | { k: 'cmp'; f: string; op: string; v: string }
  | { k: 'in'; f: string; items: string[] }
  | { k: 'list'; f: string; name: string }
  | { k: 'bare'; f: string };

const OPS = ['==', '!=', '<=', '>=', '<', '>', 'contains'];
function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 58 || c === 47 || c === 36;
}

export function rdParse(s: string): RdNode {
  let i = 0;
  const ws = () => {
    while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10)) i++;
  };
  const word = (): string => {
    ws();
    const start = i;
    while (i < s.length && isWordChar(s.charCodeAt(i))) {
      if (s.charCodeAt(i) === 46 && s.charCodeAt(i + 1) === 46) break;
      i++;
    }
    return s.slice(start, i);
  };
  const peekWord = (w: string): boolean => {
    ws();
    return s.startsWith(w, i) && !isWordChar(s.charCodeAt(i + w.length));
  };
  const value = (): string => {
    ws();
    if (s[i] === '"') {
      const end = s.indexOf('"', i + 1);
      const v = s.slice(i + 1, end);
      i = end + 1;
      return v;
    }
    return word();
  };
  const or = (): RdNode => {
    const a = [xor()];
    while (peekWord('or')) {
      i += 2;
      a.push(xor());
    }
    return a.length === 1 ? a[0]! : { k: 'or', a };
  };
  const xor = (): RdNode => {
    const a = [and()];
    while (peekWord('xor')) {
      i += 3;
      a.push(and());
    }
    return a.length === 1 ? a[0]! : { k: 'xor', a };
  };
  const and = (): RdNode => {
    const a = [unary()];
    while (peekWord('and')) {
      i += 3;
      a.push(unary());
    }
    return a.length === 1 ? a[0]! : { k: 'and', a };
  };
  const unary = (): RdNode => {
    if (peekWord('not')) {
      i += 3;
      return { k: 'not', e: unary() };
    }
    ws();
    if (s[i] === '(') {
      i++;
      const e = or();
      ws();
      i++; // ')'
      return e;
    }
    const f = word();
    ws();
    if (peekWord('in')) {
      i += 2;
      ws();
      if (s[i] === '$') return { k: 'list', f, name: word().slice(1) };
      i++; // '{'
      const items: string[] = [];
      for (;;) {
        ws();
        if (s[i] === '}') {
          i++;
          break;
        }
        let item = value();
        if (s[i] === '.' && s[i + 1] === '.') {
          i += 2;
          item += '..' + value();
        }
        items.push(item);
      }
      return { k: 'in', f, items };
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (!op) return { k: 'bare', f };
    i += op.length;
    return { k: 'cmp', f, op, v: value() };
  };
  return or();
}
