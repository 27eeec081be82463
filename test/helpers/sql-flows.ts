/** Flow rows for the SQL equality tests: the flow table's columns, packets as rows, address-like text. */
import fc from 'fast-check';
import { NETWORK_FIELDS } from '../../src/expression/index.js';
import { flowColumnFromJson, flowFields, hasLoneSurrogate, sqlString } from '../../src/sql/index.js';
import { ip } from '../expression/arbitraries.js';

const SQL_TYPES = { Int: ['BIGINT', 'Nullable(Int64)'], String: ['VARCHAR', 'Nullable(String)'], Ip: ['VARCHAR', 'Nullable(String)'], Bool: ['BOOLEAN', 'Nullable(Bool)'] } as const;
/** The flow table: one column per stored field (alias and any-of fields read their targets; no raw headers). */
export const FLOW_COLUMNS = NETWORK_FIELDS.filter((f) => !f.rawHeader && f.aliasOf === undefined && !f.anyOf).map((f) => [f.name, ...SQL_TYPES[f.type]] as [string, string, string]);
const TYPE_OF = new Map(NETWORK_FIELDS.map((f) => [f.name, f.type]));

/** A packet as a flow row holds it: values of the column's type, else missing (the matcher reads those as missing too). */
export function flowRow(p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name] of FLOW_COLUMNS) {
    const v = p[name];
    const t = TYPE_OF.get(name);
    const ok = t === 'Int' ? Number.isSafeInteger(v) : t === 'Bool' ? typeof v === 'boolean' : typeof v === 'string' && !hasLoneSurrogate(v);
    if (ok) out[name] = v;
  }
  return out;
}

/** Text that is an address, nearly one, or one written in a form the strict rules refuse. */
export const ipish = fc.oneof(
  ip,
  ip.map((a) => a.toUpperCase()),
  fc.tuple(ip, fc.constantFrom('0', ':', '::', '.', '%eth0', ' ', 'g', '1', ':1', '.0')).chain(([a, s]) => fc.nat(a.length).map((i) => a.slice(0, i) + s + a.slice(i))),
  fc.constantFrom('01.2.3.4', '1.2.3.04', '1.2.3', '1.2.3.4.5', '256.1.1.1', '::ffff:1.2.3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7::', '::1:2:3:4:5:6:7', '1::2::3', '12345::', ':1::', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '::1.2.3.4', '1::1.2.3.4', 'fe80::1%1', '', '0.0.0.0', '::'),
);

/** NDJSON flow objects written as Parquet by DuckDB, a column per flow field (lines that are not objects left out). */
export async function flowsToParquet(ndjson: string, parquet: string): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const cols = flowFields(undefined, { aliases: true }).map((f) => flowColumnFromJson(f, 'json', 'duckdb')).join(', ');
  await con.run(`COPY (SELECT ${cols} FROM read_ndjson_objects(${sqlString(ndjson)}, ignore_errors = true) WHERE json_type(json) = 'OBJECT') TO ${sqlString(parquet)} (FORMAT parquet)`);
  con.closeSync();
  db.closeSync();
}

type Diag = { code: string; data?: Record<string, unknown> };

/**
 * Invalid values per field: the in-process simulator warns of each (`perLine`: one a warning), an engine
 * counts them per field (`count` of its one warning a field). Equal maps mean both saw the same values.
 */
export function invalidValuesByField(diagnostics: readonly Diag[], perLine: boolean): Record<string, number> {
  const m: Record<string, number> = {};
  for (const d of diagnostics) {
    if (d.code !== 'simulation-invalid-value') continue;
    const field = String(d.data?.['field']);
    m[field] = (m[field] ?? 0) + (perLine ? 1 : Number(d.data?.['count']));
  }
  return m;
}
