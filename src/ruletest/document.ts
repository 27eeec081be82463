/**
 * A test file as a value plus the way back to its text: YAML through the `yaml` package's document API
 * (node ranges), JSON through src/json (strict, ranges by pointer). Both answer "where is the key or the
 * value at this path", so that every problem with a test file is reported at its line and column.
 * @module
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type Scalar } from 'yaml';
import type { Range } from '../diagnostics/index.js';
import { childPointer, parseJsonText } from '../json/index.js';
import { decodeJsonString, decodeYamlScalar, type OffsetMap } from '../lint/index.js';

/** A path into the test file's value: keys and indexes. */
export type Path = readonly (string | number)[];

/** A parsed test file. */
export interface TestDocument {
  value: unknown;
  /** Range of the value (or of its key) at a path; the nearest enclosing one when the path is absent. */
  locate(path: Path, part?: 'value' | 'key'): Range | undefined;
  /** The string at a path decoded with the file span of each unit (for positions inside a string). */
  stringMap(path: Path): OffsetMap | undefined;
}

/** A syntax problem of the text, with its place. */
export interface SyntaxProblem {
  message: string;
  range: Range;
}

/** Parse a test file by its name: `.json` as strict JSON, anything else as YAML. */
export function parseTestDocument(text: string, name: string): { doc?: TestDocument; problems: SyntaxProblem[] } {
  return /\.json$/i.test(name) ? parseJson(text) : parseYaml(text);
}

function parseJson(text: string): { doc?: TestDocument; problems: SyntaxProblem[] } {
  const { doc, errors } = parseJsonText(text, 256);
  const problems: SyntaxProblem[] = errors.map((e) => ({ message: `not valid JSON: ${e.message}`, range: e.range }));
  if (!doc) return { problems };
  for (const d of doc.duplicates) problems.push({ message: `duplicate key ${JSON.stringify(d.key)}`, range: d.range });
  const pointer = (path: Path) => path.reduce<string>((p, s) => childPointer(p, s), '');
  return {
    problems,
    doc: {
      value: doc.value,
      locate(path, part = 'value') {
        for (let n = path.length; n >= 0; n--) {
          const p = pointer(path.slice(0, n));
          const r = n === path.length && part === 'key' && typeof path[n - 1] === 'string' ? doc.keyRange(p) : doc.valueRange(p);
          if (r) return r;
        }
        return undefined;
      },
      stringMap(path) {
        const r = doc.valueRange(pointer(path));
        return r ? decodeJsonString(text, r) : undefined;
      },
    },
  };
}

function parseYaml(text: string): { doc?: TestDocument; problems: SyntaxProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  const problems: SyntaxProblem[] = doc.errors.map((e) => ({ message: `not valid YAML: ${e.message.split('\n')[0]}`, range: { start: e.pos[0], end: Math.max(e.pos[1], e.pos[0] + 1) } }));
  if (problems.length) return { problems };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { problems: [{ message: `not usable YAML: ${(e as Error).message}`, range: { start: 0, end: 1 } }] };
  }
  const rangeOf = (n: YamlNode | null | undefined): Range | undefined => (n?.range ? { start: n.range[0], end: n.range[1] } : undefined);
  return {
    problems,
    doc: {
      value,
      locate(path, part = 'value') {
        let node: unknown = doc.contents;
        let best = rangeOf(doc.contents as YamlNode);
        for (let i = 0; i < path.length; i++) {
          const seg = path[i]!;
          const last = i === path.length - 1;
          if (isMap(node)) {
            const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
            if (!pair) return best;
            if (last && part === 'key') return rangeOf(pair.key as YamlNode) ?? best;
            node = pair.value;
            best = rangeOf(pair.value as YamlNode) ?? rangeOf(pair.key as YamlNode) ?? best;
          } else if (isSeq(node) && typeof seg === 'number') {
            node = node.items[seg];
            if (!node) return best;
            best = rangeOf(node as YamlNode) ?? best;
          } else return best;
        }
        return best;
      },
      stringMap(path) {
        const node = doc.getIn(path, true);
        return isScalar(node) && typeof node.value === 'string' ? decodeYamlScalar(text, node as Scalar<string>).map : undefined;
      },
    },
  };
}
