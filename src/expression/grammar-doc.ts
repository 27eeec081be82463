/**
 * What the Chevrotain grammar generates for people: a readable EBNF listing and the railroad diagrams
 * (Chevrotain's own diagram generator). `npm run grammar` writes both to `grammar/`; a test checks that
 * the files there are current.
 * @module
 */
import { createSyntaxDiagramsCode, type ISerializedGast } from 'chevrotain';
import { grammarProductions } from './parser.js';

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

/** The grammar as an EBNF-style listing (`[ x ]` optional, `{ x }` repeated, `( a | b )` choice). */
export function grammarListing(): string {
  const rules = grammarProductions() as Gast[];
  const lines = [
    '# Grammar of network rule expressions',
    '',
    'Generated from the Chevrotain parser (`src/expression/parser.ts`) by `npm run grammar`; a test keeps it current.',
    'Notation: `[ x ]` optional, `{ x }` zero or more, `( a | b )` one of. Token categories: AndOp = `and` | `&&`,',
    'OrOp = `or` | `||`, XorOp = `xor` | `^^`, NotOp = `not` | `!`, CompareOp = `==` `eq` `!=` `ne` `<` `lt` `<=` `le`',
    '`>` `gt` `>=` `ge` `&` `bitwise_and` `contains` `matches` `~` `wildcard`. Precedence, loosest first: or, xor, and, not.',
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
