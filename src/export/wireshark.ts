/**
 * Export of a network rule expression as a Wireshark display filter (`tshark -Y`), so that security
 * engineers can open the packets a rule matches in Wireshark. The dialects differ and the exporter
 * bridges them: sets need commas (`{22, 443, 8000..8999}`); Bool fields are written `tcp.flags.syn == 1`
 * (a bare field only tests presence there); `ip.*` is IPv4 only in Wireshark, so our family-neutral fields
 * become `(ip.src … || ipv6.src …)`; `!=` gets an explicit presence test so that a missing field stays
 * false, as in rulekit. What has no equivalent is reported, not guessed.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type * as A from '../expression/index.js';
import { EXPORT_CODES, type ExportCode } from './codes.js';
import { compileExpression, optionsOf, type ExpressionOptions } from '../expression/index.js';
import { parseIpItem } from '../net/index.js';
import { ipProtocolNumber } from '../capture/index.js';
import { readIntText } from '../expression/index.js';

/** How one of our fields is spelled in Wireshark. */
interface WsField {
  /** IPv4 (or family-neutral) field. */
  v4?: string;
  /** IPv6 field, when ours covers both families. */
  v6?: string;
  /** Added to our value to get the IPv6 field's value (ip.len = 40 + ipv6.plen). */
  offset6?: number;
  /** Values are IP protocol names (ip.proto). */
  proto?: boolean;
  /** A Bool field. */
  bool?: boolean;
  /** A note when the translation is approximate. */
  approx?: string;
}

/** Our fields and their Wireshark spellings (a data table). */
export const WIRESHARK_FIELDS: Readonly<Record<string, WsField>> = {
  'ip.src': { v4: 'ip.src', v6: 'ipv6.src' },
  'ip.dst': { v4: 'ip.dst', v6: 'ipv6.dst' },
  'ip.ttl': { v4: 'ip.ttl', v6: 'ipv6.hlim' },
  'ip.len': { v4: 'ip.len', v6: 'ipv6.plen', offset6: -40 },
  'ip.hdr_len': { v4: 'ip.hdr_len', approx: 'ip.hdr_len is exported for IPv4 packets only' },
  'ip.opt.type': { v4: 'ip.opt.type' },
  'ip.proto': { v4: 'ip.proto', v6: 'ipv6.nxt', proto: true },
  'tcp.srcport': { v4: 'tcp.srcport' },
  'tcp.dstport': { v4: 'tcp.dstport' },
  'udp.srcport': { v4: 'udp.srcport' },
  'udp.dstport': { v4: 'udp.dstport' },
  'tcp.flags': { v4: 'tcp.flags' },
  'icmp.type': { v4: 'icmp.type', v6: 'icmpv6.type' },
  'icmp.code': { v4: 'icmp.code', v6: 'icmpv6.code' },
  'tcp.flags.ack': { v4: 'tcp.flags.ack', bool: true },
  'tcp.flags.cwr': { v4: 'tcp.flags.cwr', bool: true },
  'tcp.flags.ecn': { v4: 'tcp.flags.ece', bool: true },
  'tcp.flags.fin': { v4: 'tcp.flags.fin', bool: true },
  'tcp.flags.push': { v4: 'tcp.flags.push', bool: true },
  'tcp.flags.reset': { v4: 'tcp.flags.reset', bool: true },
  'tcp.flags.syn': { v4: 'tcp.flags.syn', bool: true },
  'tcp.flags.urg': { v4: 'tcp.flags.urg', bool: true },
};

/**
 * IPv6 upper-layer protocols by the name of their Wireshark layer: `ipv6.nxt` is only the FIRST next
 * header, while rulekit's ip.proto is the protocol after the extension headers, so `(ipv6 && tcp)` says it
 * exactly. Other protocols fall back to ipv6.nxt (with a warning).
 */
const IPV6_LAYERS: Readonly<Record<number, string>> = { 6: 'tcp', 17: 'udp', 58: 'icmpv6', 132: 'sctp', 33: 'dccp', 47: 'gre', 50: 'esp', 51: 'ah' };

const WS_OPS: Partial<Record<A.CompareOperator, string>> = { eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=', bitwise_and: '&' };
/** Always false in Wireshark (no `false` literal there). */
const FALSE = 'frame.number == 0';

/** The result of {@link toWireshark}. */
export interface WiresharkExport {
  /** The display filter; absent when some part has no equivalent (see diagnostics). */
  filter?: string;
  diagnostics: Diagnostic[];
}

function diag(code: ExportCode, message: string, range: Range): Diagnostic {
  return { code, severity: EXPORT_CODES[code].severity, message, range };
}

/**
 * Translate an expression into a Wireshark display filter.
 *
 * ```ts
 * toWireshark('tcp.dstport in {22 443 8000..8999} and not tcp.flags.syn').filter
 * // '(tcp.dstport in {22, 443, 8000..8999} && !(tcp.flags.syn == 1))'
 * ```
 */
export function toWireshark(expression: string, options: ExpressionOptions = {}): WiresharkExport {
  options = optionsOf(options);
  const compiled = compileExpression(expression, options);
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length || !compiled.ast) return { diagnostics: errors };
  // The whole-expression `true` matches every packet: Wireshark's `frame` does.
  const ast = compiled.ast;
  if (ast.kind === 'bare' && ast.lhs.kind === 'field' && ast.lhs.name === 'true') return { filter: 'frame', diagnostics: [] };
  const out: Diagnostic[] = [];
  // Plain {name: items} lists only: a ListCatalog (or a caller's odd value) has no items to spell out.
  const given: unknown = options.lists;
  const lists = typeof given === 'object' && given !== null && !Array.isArray(given) && typeof (given as { get?: unknown }).get !== 'function' ? (given as Record<string, readonly string[]>) : undefined;
  const filter = new Exporter(out, lists).expr(compiled.ast);
  return out.some((d) => d.severity === 'error') ? { diagnostics: out } : { filter, diagnostics: out };
}

class Exporter {
  private readonly approxSeen = new Set<string>();
  constructor(
    private readonly out: Diagnostic[],
    private readonly lists: Record<string, readonly string[]> | undefined,
  ) {}

  expr(n: A.ExprNode): string {
    switch (n.kind) {
      case 'logical':
        if (n.op === 'xor') return this.xor(n);
        return `(${n.operands.map((o) => this.expr(o)).join(n.op === 'and' ? ' && ' : ' || ')})`;
      case 'not':
        return `!(${this.expr(n.operand)})`;
      case 'group':
        return this.expr(n.expr);
      case 'bare': {
        const f = this.field(n.lhs);
        return f?.bool ? `${f.v4} == 1` : FALSE;
      }
      case 'compare':
        return this.compare(n);
      case 'in':
        return this.inExpr(n);
      default:
        return FALSE;
    }
  }

  /** tshark 4.0 has no `^^`: parity as `(a && !b) || (!a && b)`, folded left (each step doubles the text). */
  private xor(n: A.LogicalNode): string {
    if (n.operands.length > 6) {
      this.out.push(diag('no-wireshark-equivalent', `a xor of ${n.operands.length} operands is too large to spell without ^^ (at most 6)`, n.range));
      return FALSE;
    }
    let acc = this.expr(n.operands[0]!);
    for (const o of n.operands.slice(1)) {
      const b = this.expr(o);
      acc = `((${acc} && !(${b})) || (!(${acc}) && ${b}))`;
    }
    return acc;
  }

  private field(lhs: A.LhsNode): WsField | undefined {
    if (lhs.kind !== 'field') {
      this.out.push(diag('no-wireshark-equivalent', `${lhs.kind === 'call' ? `${lhs.name}()` : '[ ] / [*] indexing'} has no Wireshark equivalent here`, lhs.range));
      return undefined;
    }
    const f = WIRESHARK_FIELDS[lhs.name];
    if (!f) {
      this.out.push(diag('no-wireshark-equivalent', `${lhs.name} has no Wireshark display-filter field`, lhs.range));
      return undefined;
    }
    if (f.approx && !this.approxSeen.has(lhs.name)) {
      this.approxSeen.add(lhs.name);
      this.out.push(diag('wireshark-approximation', f.approx, lhs.range));
    }
    return f;
  }

  /** The Wireshark value of one literal for a field and family (undefined: not that family). */
  private value(f: WsField, lit: A.LiteralNode, family: 4 | 6): string | undefined {
    if (f.v6 === 'ipv6.src' || f.v6 === 'ipv6.dst') {
      const item = parseIpItem(lit.text);
      if (!item.ok || item.range.first.family !== family) return undefined;
      return lit.text;
    }
    if (f.proto) {
      const n = ipProtocolNumber(lit.value ?? lit.text);
      return n === undefined ? undefined : String(n);
    }
    const r = readIntText(lit.text);
    if (!r.ok) return undefined;
    return String(family === 6 && f.offset6 ? r.value + f.offset6 : r.value);
  }

  private variants(f: WsField): [string, 4 | 6][] {
    const v: [string, 4 | 6][] = [];
    if (f.v4) v.push([f.v4, 4]);
    if (f.v6) v.push([f.v6, 6]);
    return v;
  }

  private compare(n: A.CompareNode): string {
    const f = this.field(n.lhs);
    if (!f) return FALSE;
    const op = WS_OPS[n.op];
    if (!op || (f.proto && n.op !== 'eq' && n.op !== 'ne')) {
      this.out.push(diag('no-wireshark-equivalent', `'${n.op}' on ${(n.lhs as A.FieldNode).name} has no Wireshark equivalent`, n.opRange));
      return FALSE;
    }
    if (f.proto && n.rhs.value !== undefined && ipProtocolNumber(n.rhs.value) === undefined) {
      this.out.push(diag('no-wireshark-equivalent', `${JSON.stringify(n.rhs.value)} is not an IP protocol name, so it has no protocol number`, n.rhs.range));
      return FALSE;
    }
    if (f.proto) return this.proto(n);
    const parts: string[] = [];
    const present: string[] = [];
    for (const [ws, family] of this.variants(f)) {
      const v = this.value(f, n.rhs, family);
      if (v === undefined) {
        present.push(ws);
        continue;
      }
      parts.push(n.op === 'ne' ? `(${ws} && ${ws} != ${v})` : `${ws} ${op} ${v}`);
    }
    // `ip.src != 192.0.2.1` is true for every IPv6 packet in rulekit (its address differs).
    if (n.op === 'ne') parts.push(...present);
    return parts.length === 0 ? FALSE : parts.length === 1 ? parts[0]! : `(${parts.join(' || ')})`;
  }

  /** `ip.proto == "tcp"` → `(ip.proto == 6 || (ipv6 && tcp))`; `!=` keeps rulekit's presence rule. */
  private proto(n: A.CompareNode): string {
    const num = ipProtocolNumber(n.rhs.value ?? n.rhs.text)!;
    const layer = IPV6_LAYERS[num];
    if (!layer) this.out.push(diag('wireshark-approximation', `ipv6.nxt is the first next header; with IPv6 extension headers rulekit reads the upper-layer protocol`, n.rhs.range));
    // A non-first IPv6 fragment has no upper-layer header: its Fragment header names the protocol.
    const has6 = layer ? `(${layer} || ipv6.fraghdr.nxt == ${num})` : `ipv6.nxt == ${num}`;
    if (n.op === 'eq') return `(ip.proto == ${num} || (ipv6 && ${has6}))`;
    return `((ip.proto && ip.proto != ${num}) || (ipv6 && !${has6}))`;
  }

  private inExpr(n: A.InNode): string {
    const f = this.field(n.lhs);
    if (!f) return FALSE;
    let items: A.SetNode['items'];
    if (n.rhs.kind === 'list') {
      const list = this.lists?.[n.rhs.name];
      if (!list) {
        this.out.push(diag('no-wireshark-equivalent', `$${n.rhs.name}: give the list's items (--lists) to export it as a set`, n.rhs.range));
        return FALSE;
      }
      items = list.map((text, i) => ({ kind: 'literal', id: -1 - i, range: n.rhs.range, form: 'word', text: text.trim().replace(/-/, '..') }) as A.LiteralNode);
    } else items = n.rhs.items;
    const parts: string[] = [];
    for (const [ws, family] of this.variants(f)) {
      const values: string[] = [];
      for (const it of items) {
        if (it.kind === 'range') {
          const lo = this.value(f, it.low, family);
          const hi = this.value(f, it.high, family);
          if (lo !== undefined && hi !== undefined) values.push(`${lo}..${hi}`);
        } else if (it.text.includes('..')) {
          const [a, b] = it.text.split('..');
          const lo = this.value(f, { ...it, text: a! }, family);
          const hi = this.value(f, { ...it, text: b! }, family);
          if (lo !== undefined && hi !== undefined) values.push(`${lo}..${hi}`);
        } else {
          const v = this.value(f, it, family);
          if (v !== undefined) values.push(v);
        }
      }
      if (values.length) parts.push(`${ws} in {${values.join(', ')}}`);
    }
    return parts.length === 0 ? FALSE : parts.length === 1 ? parts[0]! : `(${parts.join(' || ')})`;
  }
}
