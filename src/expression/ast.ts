/**
 * The AST of network rule expressions: a discriminated union on `kind`; every node has an `id` (unique in
 * its tree, used as the key of the checker's side tables) and a `range` of UTF-16 offsets `[start, end)`
 * into the source. Nodes are plain JSON data. Operators are stored canonically (`eq`, not `==`), so the
 * printer writes one spelling; literals keep the text they were written with.
 * @module
 */
import type { Range } from '../diagnostics/index.js';

/** Fields common to every node. */
export interface NodeBase {
  id: number;
  range: Range;
}

/** Canonical comparison operators. */
export type CompareOperator = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'bitwise_and' | 'contains' | 'matches' | 'wildcard' | 'strict_wildcard';
/** Canonical logical operators. */
export type LogicalOperator = 'and' | 'or' | 'xor';

/** A field reference: `tcp.dstport`. */
export interface FieldNode extends NodeBase {
  kind: 'field';
  name: string;
}

/**
 * A function call: `bit_slice(tcp, 0, 8)`, `lower(http.host)`, `any(http.request.headers.names[*] == "x")`.
 * An argument is a literal, a value (field, call, index) or, for `any`/`all`, a condition over `[*]`.
 */
export interface CallNode extends NodeBase {
  kind: 'call';
  name: string;
  /** Range of the function name. */
  nameRange: Range;
  args: ArgNode[];
}

/**
 * `target[key]` (a Map key in quotes or an Array position) or `target[*]` (every item: `key` is null).
 * After `[*]` comparisons and function calls apply to each item (wirefilter's map-each), giving an array.
 */
export interface IndexNode extends NodeBase {
  kind: 'index';
  target: ValueNode;
  key: LiteralNode | null;
}

/** A value read from a request: a field, a function call or an index into one. */
export type ValueNode = FieldNode | CallNode | IndexNode;

/** A function argument. */
export type ArgNode = ValueNode | LiteralNode | ExprNode;

/** What can stand on the left of an operator. */
export type LhsNode = ValueNode;

/**
 * A literal as written. `form` says how it was lexed; the checker interprets it by the type the
 * left-hand side wants (a word may be an IP, a CIDR, a byte string...).
 */
export interface LiteralNode extends NodeBase {
  kind: 'literal';
  form: 'int' | 'string' | 'raw' | 'word';
  /** Source text of the literal, exactly as written. */
  text: string;
  /** Decoded value of a string or raw string. */
  value?: string;
}

/** `low..high` inside a set. */
export interface RangeNode extends NodeBase {
  kind: 'range';
  low: LiteralNode;
  high: LiteralNode;
}

/** `{ a b c }`. */
export interface SetNode extends NodeBase {
  kind: 'set';
  items: (LiteralNode | RangeNode)[];
}

/** `$name`. */
export interface ListNode extends NodeBase {
  kind: 'list';
  name: string;
}

/** `lhs op literal`. */
export interface CompareNode extends NodeBase {
  kind: 'compare';
  lhs: LhsNode;
  op: CompareOperator;
  /** Range of the operator token(s). */
  opRange: Range;
  rhs: LiteralNode;
}

/** `lhs in { ... }` or `lhs in $list`. */
export interface InNode extends NodeBase {
  kind: 'in';
  lhs: LhsNode;
  opRange: Range;
  rhs: SetNode | ListNode;
}

/** A bare Bool field (`tcp.flags.syn`) or call used as a condition. */
export interface BareNode extends NodeBase {
  kind: 'bare';
  lhs: LhsNode;
}

/** `not x` / `! x`. */
export interface NotNode extends NodeBase {
  kind: 'not';
  operand: ExprNode;
}

/** A run of the same logical operator: one n-ary node (`a and b and c`). */
export interface LogicalNode extends NodeBase {
  kind: 'logical';
  op: LogicalOperator;
  operands: ExprNode[];
}

/** `( x )`, kept so printing gives back the same tree. */
export interface GroupNode extends NodeBase {
  kind: 'group';
  expr: ExprNode;
}

/** A hole left by error recovery; never present in an AST without errors. */
export interface ErrorNode extends NodeBase {
  kind: 'error';
}

/** A boolean expression node. */
export type ExprNode = LogicalNode | NotNode | GroupNode | CompareNode | InNode | BareNode | ErrorNode;

/** Any node. */
export type AnyNode = ExprNode | ValueNode | LiteralNode | RangeNode | SetNode | ListNode;

/** Is this argument a value node (field, call, index)? */
export function isValueNode(n: AnyNode): n is ValueNode {
  return n.kind === 'field' || n.kind === 'call' || n.kind === 'index';
}

/** Visit every node of a tree, parents before children. */
export function walk(node: AnyNode, visit: (n: AnyNode) => void): void {
  if (node === undefined || node === null) return; // holes left by error recovery
  visit(node);
  switch (node.kind) {
    case 'logical':
      for (const o of node.operands) walk(o, visit);
      break;
    case 'not':
      walk(node.operand, visit);
      break;
    case 'group':
      walk(node.expr, visit);
      break;
    case 'compare':
      walk(node.lhs, visit);
      walk(node.rhs, visit);
      break;
    case 'in':
      walk(node.lhs, visit);
      walk(node.rhs, visit);
      break;
    case 'bare':
      walk(node.lhs, visit);
      break;
    case 'call':
      for (const a of node.args) walk(a, visit);
      break;
    case 'index':
      walk(node.target, visit);
      if (node.key) walk(node.key, visit);
      break;
    case 'set':
      for (const it of node.items) walk(it, visit);
      break;
    case 'range':
      walk(node.low, visit);
      walk(node.high, visit);
      break;
    default:
      break;
  }
}

/** The field names an expression reads (wirefilter's `FilterAst::uses`): lets a decoder skip the rest. */
export function referencedFields(node: AnyNode): Set<string> {
  const out = new Set<string>();
  walk(node, (n) => {
    if (n.kind === 'field') out.add(n.name);
  });
  return out;
}

/** The list names an expression references (without `$`). */
export function referencedLists(node: AnyNode): Set<string> {
  const out = new Set<string>();
  walk(node, (n) => {
    if (n.kind === 'list') out.add(n.name);
  });
  return out;
}
