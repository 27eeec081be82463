/**
 * Schemes: data tables of typed fields (wirefilter's `Scheme!`). The network scheme of `expressions.md`
 * is the default; callers may pass their own (`{ 'http.host': 'String' }`) or extend the default.
 * @module
 */

import { HTTP_DEPRECATED_ALIASES, HTTP_EXTRA_FIELD_ROWS, HTTP_FIELD_ROWS, type DocType } from './http-fields.js';
import { INT_FIELD_DOMAINS, type IntDomain } from './field-domains.js';

/** The value types of the language. */
export type FieldType = 'Int' | 'String' | 'Ip' | 'Bool';

/** One field of a scheme. */
export interface FieldDef {
  name: string;
  type: FieldType;
  /** One-line description (hover, completion, docs). */
  doc: string;
  /** Inclusive range of valid Int literals (ports 0..65535); a literal outside it is an error. */
  range?: readonly [number, number];
  /**
   * The values an Int field (or the items of an Int container) can hold in a packet or request
   * (`field-domains.ts`): the analysis reasons within it, the simulator takes a value outside it as bad.
   * Absent: any 64-bit integer.
   */
  domain?: IntDomain;
  /** String fields whose values are ISO 3166-1 alpha-2 country codes. */
  country?: boolean;
  /** Raw header bytes, usable only through `bit_slice`. */
  rawHeader?: boolean;
  /**
   * When the packet lacks this field, a comparison holds when it holds for ANY of these fields
   * (`ip.geoip.country` = source OR destination country).
   */
  anyOf?: readonly string[];
  /** When the packet lacks this field, read this one instead (`ip.geoip.asnum` = `ip.src.asnum`). */
  aliasOf?: string;
  /** Why the field is deprecated, if it is. */
  deprecated?: string;
  /**
   * The documented container type of an HTTP field (`Array<String>`, `Map<Array<String>>`); `type` is then
   * the type of its innermost items. Such a field is read through `[ ]` / `[*]` or passed to a function that
   * takes an array (len, join, concat).
   */
  container?: string;
}

const PORT = [0, 65535] as const;
const BYTE = [0, 255] as const;
const U16 = [0, 65535] as const;
const U32 = [0, 4294967295] as const;

/** Each Int field with its domain from {@link INT_FIELD_DOMAINS} (the table is held against the fields by a test). */
function withDomains(fields: readonly FieldDef[]): FieldDef[] {
  return fields.map((f) => {
    const row = f.type === 'Int' ? INT_FIELD_DOMAINS[f.name] : undefined;
    if (!row) return f;
    const domain: IntDomain = {};
    if (row.min !== undefined) domain.min = row.min;
    if (row.max !== undefined) domain.max = row.max;
    return { ...f, domain };
  });
}

/** The network fields of `network_transit` rules (expressions.md). */
export const NETWORK_FIELDS: readonly FieldDef[] = withDomains([
  { name: 'ip.src', type: 'Ip', doc: 'Source IP address (IPv4 or IPv6).' },
  { name: 'ip.dst', type: 'Ip', doc: 'Destination IP address (IPv4 or IPv6).' },
  { name: 'tcp.srcport', type: 'Int', doc: 'TCP source port.', range: PORT },
  { name: 'tcp.dstport', type: 'Int', doc: 'TCP destination port.', range: PORT },
  { name: 'udp.srcport', type: 'Int', doc: 'UDP source port.', range: PORT },
  { name: 'udp.dstport', type: 'Int', doc: 'UDP destination port.', range: PORT },
  { name: 'tcp.flags', type: 'Int', doc: 'TCP flags byte (FIN=0x01, SYN=0x02, RST=0x04, PSH=0x08, ACK=0x10, URG=0x20, ECE=0x40, CWR=0x80).', range: BYTE },
  { name: 'icmp.type', type: 'Int', doc: 'ICMP (or ICMPv6) message type.', range: BYTE },
  { name: 'icmp.code', type: 'Int', doc: 'ICMP (or ICMPv6) message code.', range: BYTE },
  { name: 'ip.len', type: 'Int', doc: 'Total length of the IP packet in bytes.', range: U16 },
  { name: 'ip.hdr_len', type: 'Int', doc: 'Length of the IP header in bytes.', range: BYTE },
  { name: 'ip.ttl', type: 'Int', doc: 'IPv4 time to live (IPv6: hop limit).', range: BYTE },
  { name: 'ip.opt.type', type: 'Int', doc: 'Type of the first IPv4 option.', range: BYTE },
  { name: 'ip.src.asnum', type: 'Int', doc: 'Autonomous system number of the source address.', range: U32 },
  { name: 'ip.dst.asnum', type: 'Int', doc: 'Autonomous system number of the destination address.', range: U32 },
  { name: 'ip.geoip.asnum', type: 'Int', doc: 'Same as ip.src.asnum.', range: U32, aliasOf: 'ip.src.asnum' },
  { name: 'ip.proto', type: 'String', doc: 'IP protocol name in lower case: "tcp", "udp", "icmp", ...' },
  {
    name: 'ip.geoip.country',
    type: 'String',
    doc: 'Country (ISO 3166-1 alpha-2) of the source OR destination address.',
    country: true,
    anyOf: ['ip.src.country', 'ip.dst.country'],
    deprecated: 'ip.geoip.country matches the source OR the destination country; use ip.src.country or ip.dst.country to test one side',
  },
  { name: 'ip.src.country', type: 'String', doc: 'Country (ISO 3166-1 alpha-2) of the source address.', country: true },
  { name: 'ip.dst.country', type: 'String', doc: 'Country (ISO 3166-1 alpha-2) of the destination address.', country: true },
  { name: 'cf.colo.name', type: 'String', doc: 'Name of the data center that received the packet.' },
  { name: 'cf.colo.region', type: 'String', doc: 'Region of the data center that received the packet.' },
  { name: 'ip', type: 'String', doc: 'Raw IP header bytes (for bit_slice).', rawHeader: true },
  { name: 'tcp', type: 'String', doc: 'Raw TCP header bytes (for bit_slice).', rawHeader: true },
  { name: 'udp', type: 'String', doc: 'Raw UDP header bytes (for bit_slice).', rawHeader: true },
  { name: 'icmp', type: 'String', doc: 'Raw ICMP header bytes (for bit_slice).', rawHeader: true },
  { name: 'sip', type: 'Bool', doc: 'The packet is SIP traffic.' },
  { name: 'tcp.flags.ack', type: 'Bool', doc: 'TCP ACK flag is set.' },
  { name: 'tcp.flags.cwr', type: 'Bool', doc: 'TCP CWR flag is set.' },
  { name: 'tcp.flags.ecn', type: 'Bool', doc: 'TCP ECN-Echo (ECE) flag is set.' },
  { name: 'tcp.flags.fin', type: 'Bool', doc: 'TCP FIN flag is set.' },
  { name: 'tcp.flags.push', type: 'Bool', doc: 'TCP PSH flag is set.' },
  { name: 'tcp.flags.reset', type: 'Bool', doc: 'TCP RST flag is set.' },
  { name: 'tcp.flags.syn', type: 'Bool', doc: 'TCP SYN flag is set.' },
  { name: 'tcp.flags.urg', type: 'Bool', doc: 'TCP URG flag is set.' },
]);

const TYPES: ReadonlySet<string> = new Set(['Int', 'String', 'Ip', 'Bool']);

/** A plain `{ name: type }` scheme literal. */
export type SchemeLiteral = Readonly<Record<string, FieldType>>;

/** What a scheme's expressions may be written in. */
export interface SchemeOptions {
  /**
   * The expressions are of the whole Rules language (HTTP phases): every function of the catalog may be
   * called (network rules have bit_slice only). Indexing needs Array / Map fields, which only such schemes
   * have.
   */
  rulesLanguage?: boolean;
}

/** A set of typed fields, looked up by name. Immutable. */
export class Scheme {
  private readonly byName: Map<string, FieldDef>;
  /** See {@link SchemeOptions.rulesLanguage}. */
  readonly rulesLanguage: boolean;

  private constructor(fields: Iterable<FieldDef>, options: SchemeOptions = {}) {
    this.byName = new Map();
    for (const f of fields) this.byName.set(f.name, f);
    this.rulesLanguage = options.rulesLanguage === true;
  }

  /** A scheme of the given field definitions. */
  static of(fields: Iterable<FieldDef>, options: SchemeOptions = {}): Scheme {
    return new Scheme(fields, options);
  }

  /**
   * A scheme from a plain `{ name: 'Int' | 'String' | 'Ip' | 'Bool' }` object. Entries with another type
   * or an invalid name are reported in `problems` and left out.
   */
  static fromLiteral(literal: SchemeLiteral): { scheme: Scheme; problems: string[] } {
    const fields: FieldDef[] = [];
    const problems: string[] = [];
    for (const name of Object.keys(literal)) {
      const type = literal[name] as unknown;
      if (typeof type !== 'string' || !TYPES.has(type)) problems.push(`field ${JSON.stringify(name)} has unknown type ${shortValue(type)}; types are ${[...TYPES].join(', ')}`);
      else if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/.test(name)) problems.push(`field name ${JSON.stringify(name)} is not a dotted name of letters, digits and _`);
      else fields.push({ name, type: type as FieldType, doc: '' });
    }
    return { scheme: new Scheme(fields), problems };
  }

  /** This scheme plus more fields (a field of the same name is replaced). */
  extend(fields: Iterable<FieldDef> | SchemeLiteral): Scheme {
    const more = isIterable(fields) ? [...fields] : Scheme.fromLiteral(fields).scheme.fields();
    return new Scheme([...this.byName.values(), ...more], { rulesLanguage: this.rulesLanguage });
  }

  /** The field of that name. */
  get(name: string): FieldDef | undefined {
    return this.byName.get(name);
  }

  /** All fields, in declaration order. */
  fields(): FieldDef[] {
    return [...this.byName.values()];
  }

  /** All field names. */
  names(): IterableIterator<string> {
    return this.byName.keys();
  }
}

/** A value named in a message without walking it (deep objects, BigInts and cycles cannot throw here). */
function shortValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (v === null || typeof v === 'number' || typeof v === 'boolean' || v === undefined) return String(v);
  return Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

function isIterable(x: unknown): x is Iterable<FieldDef> {
  return typeof x === 'object' && x !== null && typeof (x as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

/** The default scheme: the network fields. */
export const NETWORK_SCHEME: Scheme = Scheme.of(NETWORK_FIELDS);

/** The scheme type of a documented data type (`Number` and `Integer` are 64-bit Int; `Bytes` reads as String). */
function schemeType(doc: string): FieldType | undefined {
  return ({ String: 'String', Bytes: 'String', Integer: 'Int', Number: 'Int', Boolean: 'Bool', 'IP address': 'Ip' } as Record<string, FieldType>)[doc];
}

/** A field of the HTTP table: containers keep their documented type, their items' type is `type`. */
function httpField(name: string, doc: DocType, summary: string): FieldDef {
  const inner = /^(?:(?:Array|Map)<)*([^<>]+)>*$/.exec(doc)?.[1] ?? doc;
  const type = schemeType(inner);
  if (!type) throw new Error(`http field ${name}: unknown data type ${doc}`);
  return inner === doc ? { name, type, doc: summary } : { name, type, doc: summary, container: doc };
}

/** The fields of the HTTP phases (the public fields reference; `http-fields.ts`), deprecated aliases last. */
export const HTTP_FIELDS: readonly FieldDef[] = (() => {
  const rows = withDomains([...HTTP_FIELD_ROWS, ...HTTP_EXTRA_FIELD_ROWS].map(([name, doc, summary]) => httpField(name, doc, summary)));
  const byName = new Map(rows.map((f) => [f.name, f]));
  const aliases = Object.entries(HTTP_DEPRECATED_ALIASES).map(([name, of]): FieldDef => ({
    ...byName.get(of)!,
    name,
    doc: `Same as ${of}.`,
    aliasOf: of,
    deprecated: `it is an older name of ${of}; use ${of}`,
  }));
  return [...rows, ...aliases];
})();

/** The scheme of the HTTP phases: {@link HTTP_FIELDS}, in the whole Rules language. */
export const HTTP_SCHEME: Scheme = Scheme.of(HTTP_FIELDS, { rulesLanguage: true });
