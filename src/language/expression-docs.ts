/**
 * The words shown for each catalog entry of the expression language — fields, operators, keywords,
 * functions, lists — built from the catalogs (scheme, operator table, function table), shared by
 * completion and hover.
 * @module
 */
import {
  COMPARE_OPERATORS, FUNCTIONS, IN_LIST_TYPES, IN_OPERATOR, IN_SET_TYPES, LOGICAL_OPERATORS, NOT_OPERATOR,
  type CompareOperator, type FieldDef, type FieldType, type LogicalOperator,
} from '../expression/index.js';
import type { ListEntry } from './options.js';

const code = (s: string) => '`' + s + '`';

/** The operators (their printed spelling) valid on a left-hand type, `in` included. */
export function operatorsFor(type: FieldType | undefined): CompareOperator[] {
  return (Object.keys(COMPARE_OPERATORS) as CompareOperator[]).filter((op) => type === undefined || COMPARE_OPERATORS[op].types.includes(type));
}

/** Whether `in {…}` and `in $list` apply to a type (undefined: the field is unknown, so say yes). */
export function inApplies(type: FieldType | undefined): { set: boolean; list: boolean } {
  return { set: type === undefined || IN_SET_TYPES.includes(type), list: type === undefined || IN_LIST_TYPES.includes(type) };
}

/** A field's type and flags on one line (`Int 0..65535`). */
export function fieldDetail(f: FieldDef): string {
  let s = f.type;
  if (f.range) s += ` ${f.range[0]}..${f.range[1]}`;
  if (f.rawHeader) s += ' (raw header, for bit_slice)';
  if (f.deprecated) s += ' (deprecated)';
  return s;
}

/** A field's whole description. */
export function fieldMarkdown(f: FieldDef): string {
  const parts = [`**${f.name}** ${code(f.type)}`];
  if (f.doc) parts.push(f.doc);
  if (f.range) parts.push(`Values ${f.range[0]}..${f.range[1]}.`);
  if (f.country) parts.push('Values are ISO 3166-1 alpha-2 country codes in upper case (`"US"`).');
  if (f.deprecated) parts.push(`Deprecated: ${f.deprecated}.`);
  if (f.rawHeader) parts.push('Read it through `bit_slice(' + f.name + ', start_bit, end_bit)`.');
  else if (f.type !== 'Bool') {
    const ops = operatorsFor(f.type).map((op) => code(COMPARE_OPERATORS[op].print));
    const inn = inApplies(f.type);
    if (inn.set) ops.push(code('in {…}'));
    if (inn.list) ops.push(code('in $list'));
    parts.push(`Operators: ${ops.join(' ')}`);
  } else parts.push('A condition by itself (`' + f.name + '`, `not ' + f.name + '`).');
  return parts.join('\n\n');
}

/** Other spellings of an operator (`also eq`), with each spelling passed through `show`. */
function alsoSpelled(print: string, spellings: readonly string[], show: (s: string) => string = (s) => s): string {
  const others = spellings.filter((s) => s !== print);
  return others.length ? `also ${others.map(show).join(', ')}` : '';
}

/** A comparison operator's detail line. */
export function operatorDetail(op: CompareOperator): string {
  const row = COMPARE_OPERATORS[op];
  return [row.types.join(' | '), alsoSpelled(row.print, row.spellings)].filter(Boolean).join(' · ');
}

/** A comparison operator's description. */
export function operatorMarkdown(op: CompareOperator): string {
  const row = COMPARE_OPERATORS[op];
  const also = alsoSpelled(row.print, row.spellings, code);
  return [`**${row.print}**${also ? ` (${also})` : ''}`, row.doc, `Applies to ${row.types.map(code).join(', ')} fields.`].join('\n\n');
}

/** `in`'s description. */
export function inMarkdown(): string {
  return [
    `**${IN_OPERATOR.print}**`,
    `Membership: ${code('in {…}')} (a set of values or ranges) on ${IN_SET_TYPES.map(code).join(', ')} fields; ${code('in $list')} on ${IN_LIST_TYPES.map(code).join(', ')} fields.`,
  ].join('\n\n');
}

/** A logical operator's or `not`'s description, with its binding strength from the table. */
export function logicalMarkdown(op: LogicalOperator | 'not'): string {
  const row = op === 'not' ? NOT_OPERATOR : LOGICAL_OPERATORS[op];
  const also = alsoSpelled(row.print, row.spellings, code);
  const all = [...Object.values(LOGICAL_OPERATORS), NOT_OPERATOR];
  const looser = all.filter((r) => r.precedence < row.precedence).map((r) => code(r.print));
  const meaning = op === 'not' ? 'Negates the simple expression after it.' : op === 'xor' ? 'True when exactly one side is true (parity).' : op === 'and' ? 'True when both sides are true (short-circuit).' : 'True when either side is true (short-circuit).';
  return [
    `**${row.print}**${also ? ` (${also})` : ''}`,
    meaning,
    looser.length ? `Binds tighter than ${looser.join(', ')}.` : 'Binds loosest.',
  ].join('\n\n');
}

/** A function's detail line (its signature). */
export function functionDetail(name: string): string {
  return FUNCTIONS[name]!.signature;
}

/** A function's description. */
export function functionMarkdown(name: string): string {
  const f = FUNCTIONS[name]!;
  return [code(f.signature), f.doc, `Example: ${code(f.example)}`].join('\n\n');
}

/** A list's detail line. */
export function listDetail(l: ListEntry): string {
  return l.managed ? 'managed list' : l.items === undefined ? 'account list' : `account list, ${l.items} item${l.items === 1 ? '' : 's'}`;
}

/** A list's description. */
export function listMarkdown(l: ListEntry | undefined, name: string): string {
  if (!l) return `**$${name}**\n\nAn account list not among the lists given: it is checked when a list catalog is given.`;
  return [`**$${l.name}**`, `${listDetail(l)[0]!.toUpperCase()}${listDetail(l).slice(1)} of IP addresses, CIDRs and ranges; ${code(`ip.src in $${l.name}`)}.`].join('\n\n');
}
