/**
 * What the Chevrotain grammar generates for people: a readable EBNF listing and the railroad diagrams
 * (Chevrotain's own diagram generator). `npm run grammar` writes both to `grammar/`; a test checks that
 * the files there are current.
 * @module
 */
import { createSyntaxDiagramsCode, type ISerializedGast } from 'chevrotain';
import { grammarProductions } from './parser.js';
import { COMPARE_OPERATORS, LOGICAL_OPERATORS, NOT_OPERATOR } from './operators.js';

type Gast = ISerializedGast & { name?: string; label?: string; definition?: Gast[]; separator?: Gast; pattern?: string };

function terminal(t: Gast): string {
  if (t.name === 'AnyValue') return '( integer | word | field name | string | raw string )';
  return t.label && t.label !== t.name ? t.label.replace(/^'(.*)'$/, '"$1"') : (t.name ?? '?');
}

function seq(defs: Gast[] | undefined): string {
  return (defs ?? []).map(item).join(' ');
}

function item(g: Gast): string {
  switch (g.type) {
    case 'Terminal':
      return terminal(g);
    case 'NonTerminal':
      return g.name ?? '?';
    case 'Option':
      return `[ ${seq(g.definition)} ]`;
    case 'Repetition':
      return `{ ${seq(g.definition)} }`;
    case 'RepetitionMandatory':
      return `${wrap(seq(g.definition))} { ${seq(g.definition)} }`;
    case 'RepetitionWithSeparator':
      return `[ ${seq(g.definition)} { ${g.separator ? terminal(g.separator) : ','} ${seq(g.definition)} } ]`;
    case 'Alternation':
      return `( ${(g.definition ?? []).map((alt) => seq(alt.definition)).join(' | ')} )`;
    default:
      return seq(g.definition);
  }
}

function wrap(s: string): string {
  return s.includes(' ') ? `( ${s} )` : s;
}

const code = (s: string) => `\`${s}\``;

/** The token categories and their spellings, from the operator table. */
function categories(): string {
  const logical = Object.values(LOGICAL_OPERATORS).map((o) => `${o.print[0]!.toUpperCase()}${o.print.slice(1)}Op = ${o.spellings.map(code).join(' | ')}`);
  const not = `NotOp = ${NOT_OPERATOR.spellings.map(code).join(' | ')}`;
  const compare = Object.values(COMPARE_OPERATORS).flatMap((o) => o.spellings.filter((s) => !s.includes(' '))).map(code);
  return [...logical, not, `CompareOp = ${compare.join(' ')}`].join(', ');
}

/** Operators loosest first. */
function precedence(): string {
  return [...Object.values(LOGICAL_OPERATORS), NOT_OPERATOR].sort((a, b) => a.precedence - b.precedence).map((o) => o.print).join(', ');
}

/** A paragraph as lines of at most 110 characters. */
function wrapWords(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > 110) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The grammar as an EBNF-style listing (`[ x ]` optional, `{ x }` repeated, `( a | b )` choice). */
export function grammarListing(): string {
  const rules = grammarProductions() as Gast[];
  const lines = [
    '# Grammar of network rule expressions',
    '',
    'Generated from the Chevrotain parser (`src/expression/parser.ts`) by `npm run grammar`; a test keeps it current.',
    ...wrapWords(`Notation: \`[ x ]\` optional, \`{ x }\` zero or more, \`( a | b )\` one of. Token categories: ${categories()}. Precedence, loosest first: ${precedence()}.`),
    '',
    '```ebnf',
    ...rules.map((r) => `${r.name} = ${seq(r.definition)} ;`),
    '```',
    '',
  ];
  return lines.join('\n');
}

/** The railroad diagrams as a standalone HTML page. */
export function railroadHtml(): string {
  return createSyntaxDiagramsCode(grammarProductions());
}
