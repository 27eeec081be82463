/**
 * Simulation on a SQL engine (Node only): a ruleset's per-rule summary computed by DuckDB
 * (`@duckdb/node-api`) or ClickHouse embedded (`chdb`) over flow files — NDJSON packet objects (one a
 * line, plain or gzip) or Parquet with a column per field — or by a ClickHouse server over a table with a
 * column per field, instead of in this process. The SQL comes from src/sql (`rulesetSummarySql`); the
 * summary has the in-process simulator's shape and figures:
 * blank lines and lines that are not JSON objects are not packets, a value the simulator would take as
 * missing (wrong type, an Int out of range, text that is not an address) is NULL, and examples are the
 * lowest packet numbers, their packets read back and checked as the simulator checks them.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { ListCatalog, NETWORK_SCHEME, type FieldDef, type ListItems, type Packet } from '../expression/index.js';
import { suggest } from '../diagnostics/index.js';
import { httpPhaseRefusal, isHttpRuleset, rulesetDiagnostic, rulesetProblems, type Ruleset } from '../ruleset/index.js';
import { simulateRequestsOnEngine } from './sql-requests.js';
import { checkPacketValues, compileRuleset, readsGeoFields, type SimulationSummary } from '../engine/index.js';
import { addSettings, clickHouseTable, openClickHouseServer, openEngine, withQueryRoom, type SqlEngineName, type SqlRunner as Runner } from './sql-runner.js';
import { takeRuleFigures } from './sql-summary.js';
import { ndjsonCompression } from './engine-compression.js';
import { checkedFlowColumn, dialectOf, flowFields, ipTextColumn, jsonFlowColumn, keyedAddresses, valueFlowColumn, rulesetSummarySql, type Dialect } from '../sql/index.js';

/** Options of {@link simulateOnEngine}. */
export interface EngineSimulationOptions {
  engine: SqlEngineName;
  lists?: ListItems | ListCatalog;
  serviceToken?: string;
  examplesPerRule?: number;
  /**
   * A ClickHouse server (`http://host:8123`, credentials in the URL or `CLICKHOUSE_USER` /
   * `CLICKHOUSE_PASSWORD`) instead of chdb, with `engine: 'clickhouse'`: the inputs are then one table
   * name (`flows` or `db.flows`) with a column per field, not files.
   */
  clickhouseUrl?: string;
  /** Which rules the SQL evaluates on which rows (see `SummarySqlOptions.evaluation`; default eager). */
  evaluation?: 'eager' | 'lazy';
}

/** What {@link simulateOnEngine} returns. */
export interface EngineSimulationReport {
  ok: boolean;
  summary: SimulationSummary;
  diagnostics: Diagnostic[];
  /** The summary query as run (for people who want to run it elsewhere). */
  sql?: string;
}

const isParquet = (f: string) => /\.parquet$/i.test(f);

/** The names of the columns a Parquet source has. */
async function parquetColumns(run: Runner, dialect: Dialect, files: readonly string[]): Promise<Set<string>> {
  const rows = await run.rows(dialect.source.describeParquet(files));
  return new Set(rows.map((r) => String(r['column_name'] ?? r['name'])));
}

/** A flow table as {@link flowSource} reads it. */
export interface FlowSource {
  /** The relation (with the packet's JSON text in `packet` when asked). */
  from: (packet: boolean) => string;
  /** What ends a query over it (a `SETTINGS` clause, or nothing). */
  settings: string;
  ipKeys: Record<string, string[]>;
  invalid?: { field: FieldDef; cond: string }[];
  /** `rn` comes from the row's position, so a filter on it may be pushed below it. */
  positional?: boolean;
  /**
   * With `linePositions`, where the engine numbers NDJSON lines: `rn` is the line's place in the file,
   * blank and other lines counted, and this query reads given lines back and counts the lines before
   * each that are not packets (see the dialect's `linePositions`), which turns a place into a packet number.
   */
  readBack?: (lines: readonly number[]) => string;
  /**
   * Where rows are numbered in read order and the engine can store rows in that order with every thread
   * writing (the dialect's `readOrderTable`): the flow table without `rn` (its packet numbers are then the
   * stored rows' places), so that the rows are decided in parallel and only the decisions are numbered.
   */
  unnumbered?: string;
  /**
   * With `unnumbered`: the column of it holding a hash of each row's line (the dialect's `lineHash`), and a
   * query of the lines with given hashes (`h`, `packet`), read on every thread: example packets found by
   * their lines' hashes, with no scan numbering the lines in order.
   */
  byHash?: { column: string; lines: (hashes: readonly string[]) => string };
  /**
   * NDJSON read as one map a line (the dialect's `memberMaps`): a file the engine refuses so is read again
   * as whole lines (`wholeLines` of {@link flowSource}).
   */
  memberMaps?: boolean;
}

/**
 * The flow table with a packet number `rn` and the raw packet (`packet`, JSON text) for examples. Packets
 * are numbered in file order, after blank and non-object lines are dropped: from each row's position in
 * its file where the dialect reads it (`positional`: Parquet, `parquetPositions`), else in read order
 * (single-threaded reading where the engine would otherwise number blocks as they finish: the dialect's
 * `readInOrder` settings).
 */
export async function flowSource(run: Runner, dialect: Dialect, files: readonly string[], read: ReadonlySet<string>, table: boolean, options: { linePositions?: boolean; wholeLines?: boolean } = {}): Promise<FlowSource> {
  // Only the fields the rules read: each column of NDJSON is a JSON lookup per row.
  const fields = flowFields(undefined, { aliases: true }).filter((f) => read.has(f.name));
  const { source } = dialect;
  const id = (s: string) => dialect.identifier(s);
  // An address field is read as text first, its keys then computed once a row (keyedAddresses).
  const named = (f: FieldDef) => id(f.type === 'Ip' ? ipTextColumn(f.name) : f.name);
  const absent = (f: FieldDef) => `CAST(NULL AS ${dialect.flowTypes[f.type]}) AS ${named(f)}`;
  const { ipKeys } = keyedAddresses(dialect, fields, '', '');
  // Numbered rows, with the packet's JSON text when asked for (examples) and the select items `cols`.
  // rowNumber null: no number (see FlowSource.unnumbered).
  const numbered = (packet: string | undefined, cols: readonly string[], from: string, rowNumber: string | null = source.rowNumber) =>
    keyedAddresses(dialect, fields, `(SELECT ${[...(rowNumber === null ? [] : [`${rowNumber} AS rn`]), ...(packet !== undefined ? [`${packet} AS packet`] : []), ...cols].join(', ') || '1 AS one'} FROM ${from})`, 'flows').from;
  if (table) {
    // A server's table: typed columns as in Parquet, numbered in the order one thread reads them.
    const name = clickHouseTable(files[0]!, id);
    const described = await run.rows(`DESCRIBE TABLE ${name}`);
    const types = new Map(described.map((r) => [String(r['name']), String(r['type'])]));
    const cols = fields.map((f) => {
      const type = types.get(f.name);
      if (type === undefined) return absent(f);
      if (f.type === 'Ip') return `${source.nativeIpText(id(f.name), type) ?? id(f.name)} AS ${named(f)}`;
      return checkedFlowColumn(dialect, f);
    });
    // The packet read back for an example: the table's field columns (a timestamp or other column is not a packet member).
    const members = flowFields(undefined, { aliases: true }).filter((f) => types.has(f.name)).map((f) => f.name);
    const packetOf = members.length ? source.rowJson(members) : `'{}'`;
    return { from: (packet) => numbered(packet ? packetOf : undefined, cols, name), settings: source.readInOrder('rows'), ipKeys };
  }
  if (files.every(isParquet)) {
    const have = await parquetColumns(run, dialect, files);
    const cols = fields.map((f) => (!have.has(f.name) ? absent(f) : f.type === 'Ip' ? `${id(f.name)} AS ${named(f)}` : checkedFlowColumn(dialect, f)));
    const positions = source.parquetPositions(files);
    if (positions) {
      // Numbered by position: read on every thread, and a filter on the number reads only those rows.
      const counts: number[] = [];
      if (positions.counts) for (const r of await run.rows(positions.counts)) counts[Number(r['i'])] = Number(r['n']);
      const p = positions.numbered(Array.from(counts, (n) => n ?? 0));
      return { from: (packet) => numbered(packet ? p.rowJson : undefined, cols, p.from, p.rowNumber), settings: '', ipKeys, positional: true };
    }
    const parquet = source.parquet(files);
    return { from: (packet) => numbered(packet ? parquet.rowJson : undefined, cols, parquet.from), settings: source.readInOrder('rows'), ipKeys };
  }
  if (files.some(isParquet)) throw new Error('give flows as NDJSON or as Parquet, not both in one run');
  const line = source.lineColumn;
  const compression = await ndjsonCompression(files);
  // Numbered by the line's place where the engine gives it (every thread reads), else in read order; gzip
  // told by its bytes is read through objectLines, which the compression is given to.
  const positions = options.linePositions && !compression ? source.linePositions(files) : undefined;
  // Each member read where the dialect reads it best: one map a line where the engine reads lines so
  // (DuckDB's memberMaps), one parse a line for all of them (ClickHouse's lineValues), else JSON functions
  // over the line (DuckDB's whole-line path: lineMembers).
  const keys = fields.map((f) => f.name);
  const maps = positions || options.wholeLines ? undefined : source.memberMaps(files, compression);
  const memberColumn = (i: number) => id(`rulekit_member ${i}`);
  const typed = maps ? undefined : source.lineValues(line, keys);
  const byLine = maps
    ? { items: keys.map((k, i) => `${maps.member(k)} AS ${memberColumn(i)}`), member: (i: number): [string, string?] => [memberColumn(i)] }
    : typed ? undefined : source.lineMembers(line, keys);
  const items = typed?.items ?? byLine!.items;
  const value = (i: number) => typed?.value(i) ?? dialect.json(...byLine!.member(i));
  const lineText = maps?.text ?? source.lineText;
  const lineHash = maps?.hash ?? source.lineHash;
  // An Int member's number is read once, a level below the tests of its range and wholeness (an engine
  // computes a repeated expression inside CASE again: four reads of the member a field, in DuckDB).
  const number = (f: FieldDef) => id(`${f.name} number`);
  const numbers = fields.flatMap((f, i) => {
    if (f.type !== 'Int') return [];
    const x = value(i);
    return [`${dialect.nullUnless(x.isNumber, x.num)} AS ${number(f)}`];
  });
  const cols = fields.map((f, i) => {
    if (f.type === 'Int') {
      const [lo, hi] = f.range ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      const n = number(f);
      return `${dialect.nullUnless(`${n} = floor(${n}) AND ${n} BETWEEN ${lo} AND ${hi}`, dialect.toInt64(n))} AS ${id(f.name)}`;
    }
    const x = value(i);
    if (f.type !== 'Ip') return valueFlowColumn(dialect, f, x);
    return `${dialect.nullUnless(x.isString, x.text)} AS ${named(f)}`;
  });
  // Whether the line has the member (JSON null included, as the simulator warns of a null too).
  const present = fields.map((f, i) => `${maps ? maps.has(f.name) : value(i).has} AS p${i}`);
  const objects = positions?.from ?? maps?.from ?? source.objectLines(files, undefined, compression);
  const withMembers = items.length ? `(SELECT *, ${items.join(', ')} FROM ${objects}) AS members` : objects;
  const lines = numbers.length ? `(SELECT *, ${numbers.join(', ')} FROM ${withMembers}) AS lines` : withMembers;
  const storedOrder = (): Pick<FlowSource, 'unnumbered' | 'byHash'> => {
    const column = 'rulekit_line_hash';
    const hashed = `(SELECT ${lineHash} AS h, ${lineText} AS packet FROM ${objects}) AS hashed`;
    return {
      unnumbered: numbered(undefined, [...cols, ...present, `${lineHash} AS ${id(column)}`], lines, null),
      byHash: { column, lines: (hashes) => `SELECT h, packet FROM ${hashed} WHERE h IN (${hashes.join(', ')})` },
    };
  };
  return {
    invalid: invalidValues(fields, dialect),
    from: (packet) => numbered(packet ? lineText : undefined, [...cols, ...present], lines, positions ? 'rulekit_line' : source.rowNumber),
    settings: addSettings(positions ? '' : source.readInOrder('lines'), typed?.settings ?? []),
    ipKeys,
    ...(positions ? { positional: true, readBack: positions.readBack } : source.readOrderTable('') ? storedOrder() : {}),
    ...(maps ? { memberMaps: true } : {}),
  };
}

/**
 * Per field read from NDJSON, the rows whose line has the member but whose value the simulator would not
 * take (wrong type, out of range, not an address): present (`pI`) and NULL once checked.
 */
function invalidValues(fields: readonly FieldDef[], dialect: Dialect): { field: FieldDef; cond: string }[] {
  return fields.map((field, i) => ({ field, cond: `p${i} AND ${dialect.identifier(field.name)} IS NULL` }));
}

/** Rows of NDJSON whose keys are read for misspelt fields: enough to meet every key a flow export writes. */
const KEY_SAMPLE_ROWS = 100_000;

/**
 * The member names of the flows (NDJSON: the keys of the first {@link KEY_SAMPLE_ROWS} objects) or their
 * columns (Parquet, a server's table), and whether they are free-form packet members (NDJSON) or columns,
 * which may hold more than packets (a timestamp).
 */
async function sourceNames(run: Runner, dialect: Dialect, files: readonly string[], table: boolean): Promise<{ names: string[]; members: boolean }> {
  if (table) {
    const described = await run.rows(`DESCRIBE TABLE ${clickHouseTable(files[0]!, (s) => dialect.identifier(s))}`);
    return { names: described.map((r) => String(r['name'])), members: false };
  }
  if (files.every(isParquet)) return { names: [...(await parquetColumns(run, dialect, files))], members: false };
  const sql = `SELECT DISTINCT ${dialect.jsonKeys(dialect.source.lineColumn)} AS k FROM ${dialect.source.objectLines(files, KEY_SAMPLE_ROWS, await ndjsonCompression(files))}`;
  return { names: (await run.rows(sql)).map((r) => String(r['k'])), members: true };
}

/**
 * `simulation-unknown-field` for the flows' names the network scheme lacks, as the in-process simulator
 * warns of a packet's: every NDJSON member (a misspelt `tcp.dst_port` is decided as missing), and the
 * columns that look like a misspelt field (a column may hold more than packets: a timestamp is not one).
 */
function unknownNames(found: { names: string[]; members: boolean }): Diagnostic[] {
  const known = [...NETWORK_SCHEME.names()];
  const out: Diagnostic[] = [];
  for (const name of found.names.sort()) {
    if (NETWORK_SCHEME.get(name)) continue;
    const guess = suggest(name, known);
    if (!found.members && !guess) continue;
    const where = found.members ? `the flows' packet objects (the first ${KEY_SAMPLE_ROWS.toLocaleString('en')} read)` : 'the flows\' columns';
    out.push(rulesetDiagnostic('simulation-unknown-field', `${where} name the unknown field ${name}${guess ? `; did you mean ${guess}?` : ''} (rules read it as missing)`, '', { data: { field: name, ...(guess ? { suggestion: guess } : {}) } }));
  }
  return out;
}

/**
 * Example packets by number from a read-order table (`numbered`, see the dialect's `readOrderTable`) that
 * holds each row's line hash: the hashes of the wanted rows, then the lines with those hashes in one scan on
 * every thread. `undefined` when two different lines share a wanted hash (the caller then numbers lines
 * in order): equal lines are the same packet, different ones cannot be told apart by the hash.
 */
export async function examplesByHash(run: Runner, numbered: string, byHash: NonNullable<FlowSource['byHash']>, numbers: readonly number[]): Promise<[rn: unknown, packet: unknown][] | undefined> {
  const hashOf = new Map((await run.rows(`SELECT rn, ${byHash.column} AS h FROM ${numbered} WHERE rn IN (${numbers.join(', ')})`)).map((r) => [Number(r['rn']), String(r['h'])]));
  const lines = new Map<string, string>();
  for (const r of await run.rows(byHash.lines([...new Set(hashOf.values())]))) {
    const [h, text] = [String(r['h']), String(r['packet'])];
    if (lines.has(h) && lines.get(h) !== text) return undefined;
    lines.set(h, text);
  }
  if (numbers.some((n) => !lines.has(hashOf.get(n) ?? ''))) return undefined;
  return numbers.map((n) => [n, lines.get(hashOf.get(n)!)]);
}

/** A packet read back for an example: JSON members, NULLs (Parquet's missing values) left out. */
function packetOf(text: string): Packet {
  const v = JSON.parse(text) as Record<string, unknown>;
  for (const k of Object.keys(v)) if (v[k] === null) delete v[k];
  return v;
}

/**
 * Run a ruleset (its JSON text) over flow files on an engine and return the simulator's summary.
 *
 * ```ts
 * const r = await simulateOnEngine(readFileSync('ruleset.json', 'utf8'), ['flows.parquet'], { engine: 'duckdb' });
 * r.summary.rules.map((x) => [x.index, x.matched, x.decided]);
 * ```
 */
export async function simulateOnEngine(rulesetText: string, files: readonly string[], options: EngineSimulationOptions): Promise<EngineSimulationReport> {
  const empty: SimulationSummary = { packets: 0, verdicts: { allow: 0, block: 0 }, defaultAllowed: 0, rules: [] };
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const problems = rulesetProblems(rulesetText, { lists, serviceToken: options.serviceToken });
  let parsed: unknown;
  try {
    parsed = JSON.parse(rulesetText);
  } catch {
    parsed = undefined; // reported by rulesetProblems
  }
  // HTTP phases run over Logpush http_requests files (sql-requests.ts); a server's table is read as flows.
  const http = isHttpRuleset(parsed);
  if (!http || options.clickhouseUrl !== undefined) problems.push(...httpPhaseRefusal(parsed, 'the SQL engines run network-phase rulesets over flows, and HTTP-phase rulesets over Logpush http_requests files (not a ClickHouse server table)'));
  if (hasErrors(problems)) {
    if (!problems.some((d) => d.code === 'simulation-invalid-ruleset')) problems.push(rulesetDiagnostic('simulation-invalid-ruleset', `the ruleset has ${problems.filter((d) => d.severity === 'error').length} error(s); fix them to simulate`, ''));
    return { ok: false, summary: empty, diagnostics: problems };
  }
  const body = JSON.parse(rulesetText) as Ruleset;
  if (http) return simulateRequestsOnEngine(body, files, options, problems.filter((d) => !d.pointer?.endsWith('/expression')));
  const examples = options.examplesPerRule ?? 3;
  // The in-process compilation gives the summary's rows (every rule, refs, enabled) and the fields whose values examples are checked on.
  const compiled = compileRuleset(body, { lists, serviceToken: options.serviceToken, examplesPerRule: examples });
  const dialect = dialectOf(options.engine);
  const diagnostics: Diagnostic[] = [...compiled.diagnostics, ...problems.filter((d) => !d.pointer?.endsWith('/expression'))];
  // As in process without a country/ASN table (an engine takes none): only the flows' own values count.
  if (readsGeoFields(compiled.fields)) diagnostics.push(rulesetDiagnostic('simulation-no-geoip', 'the ruleset reads country/ASN fields but no country/ASN table was given: those fields are missing for every packet that does not carry them', ''));
  if (options.clickhouseUrl !== undefined && options.engine !== 'clickhouse') throw new Error('a ClickHouse URL goes with the clickhouse engine');
  if (options.clickhouseUrl !== undefined) {
    // Checked before connecting: a usage mistake, not a failure to read.
    if (files.length !== 1) throw new Error('give one ClickHouse table (NAME or DATABASE.NAME) to simulate over');
    clickHouseTable(files[0]!, (s) => dialect.identifier(s));
  }
  const run = options.clickhouseUrl !== undefined ? await openClickHouseServer(options.clickhouseUrl) : await openEngine(options.engine);
  try {
    const open = (wholeLines: boolean) => flowSource(run, dialect, files, compiled.fields, options.clickhouseUrl !== undefined, { linePositions: true, wholeLines });
    let flows = await open(false);
    diagnostics.push(...unknownNames(await sourceNames(run, dialect, files, options.clickhouseUrl !== undefined)));
    const summaryQuery = ({ from, ipKeys, invalid = [], unnumbered, byHash }: FlowSource) => {
      const sqlOptions = { dialect: options.engine, lists, serviceToken: options.serviceToken, examplesPerRule: examples, aliasColumns: true, ipKeys, evaluation: options.evaluation, counts: invalid.map((x) => x.cond) };
      return rulesetSummarySql(body, unnumbered ?? from(false), unnumbered === undefined ? sqlOptions : { ...sqlOptions, rowNumber: null, carry: byHash ? [byHash.column] : [] });
    };
    let query = summaryQuery(flows);
    const refused = query.diagnostics.filter((d) => d.code.startsWith('sql-'));
    if (!query.sql) return { ok: false, summary: compiled.summary(), diagnostics: [...diagnostics, ...refused] };
    const eager = options.evaluation === 'lazy' ? [] : dialect.eagerSettings;
    // Where rows would be numbered as read (row_number, which keeps the whole per-row work — members,
    // address keys, every rule — on one thread), they are decided on every thread into a table that keeps
    // read order and numbered by their place there.
    const stored = flows.unnumbered === undefined ? undefined : dialect.source.readOrderTable('rulekit_decided')!;
    if (stored) {
      try {
        await run.rows(stored.create(withQueryRoom(query.steps!.rows, flows.settings, dialect, eager)));
      } catch (e) {
        if (!flows.memberMaps) throw e;
        // The engine refused the files read as one map a line: whole lines, as the other path reads them.
        flows = await open(true);
        query = summaryQuery(flows);
        await run.rows(stored.create(withQueryRoom(query.steps!.rows, flows.settings, dialect, eager)));
      }
    }
    const { from, settings, invalid = [], positional, readBack, byHash } = flows;
    try {
      const [row] = await run.rows(stored ? query.steps!.fold(stored.numbered) : withQueryRoom(query.sql!, settings, dialect, eager));
      const summary = compiled.summary();
      const n = (k: string) => Number(row?.[k] ?? 0);
      summary.packets = n('packets');
      summary.verdicts = { allow: n('packets') - n('blocked'), block: n('blocked') };
      summary.defaultAllowed = n('default_allowed');
      // The simulator warns of each such value by line; the engine counts them per field.
      invalid.forEach(({ field }, i) => {
        const count = n(`counted_${i}`);
        if (count) diagnostics.push(rulesetDiagnostic('simulation-invalid-value', `${count} packet(s) hold a ${field.name} value that is not a valid ${field.type}${field.range ? ` in ${field.range[0]}..${field.range[1]}` : ''}; the field is taken as missing there (the in-process simulator names each line)`, '', { data: { field: field.name, type: field.type, count } }));
      });
      const wanted = takeRuleFigures(summary, query.rules!, row);
      const numbers = [...new Set([...wanted.values()].flat())];
      if (numbers.length) {
        const packetNumber = new Map(numbers.map((x) => [x, x]));
        let got: [rn: unknown, packet: unknown][];
        const hashed = stored && byHash ? await examplesByHash(run, stored.numbered, byHash, numbers) : undefined;
        if (hashed) got = hashed;
        else if (readBack) {
          // Lines by their places, in one scan with the count that turns each place into a packet number.
          const [r] = await run.rows(readBack(numbers));
          got = (r?.['got'] as [unknown, unknown][] | undefined) ?? [];
          numbers.forEach((x, i) => packetNumber.set(x, x - Number(r?.[`b${i}`] ?? 0)));
        } else {
          // A number read from the row's position needs no barrier against the filter pushed below it.
          const numbered = positional ? from(true) : dialect.source.keepNumbering(from(true));
          // The LIMIT ends an ordered scan at the last example instead of the end of the file.
          got = (await run.rows(`SELECT rn, packet FROM ${numbered} WHERE rn IN (${numbers.join(', ')}) LIMIT ${numbers.length}${settings}`)).map((r) => [r['rn'], r['packet']]);
        }
        const byNumber = new Map(got.map(([rn, packet]) => [Number(rn), packetOf(String(packet))]));
        const scratch: Diagnostic[] = [];
        for (const [index, rns] of wanted) {
          summary.rules[index]!.examples = rns.map((i) => ({ index: packetNumber.get(i)!, packet: checkPacketValues(byNumber.get(i) ?? {}, compiled.fields, { text: '', pointer: '' }, scratch) }));
        }
      }
      return { ok: true, summary, diagnostics, sql: query.sql! };
    } finally {
      if (stored) await run.rows(stored.drop);
    }
  } catch (e) {
    diagnostics.push({ code: 'simulation-unreadable-input', severity: 'error', message: `${options.engine} could not read the flows: ${(e as Error).message.split('\n')[0]}`, pointer: '' });
    return { ok: false, summary: compiled.summary(), diagnostics };
  } finally {
    await run.close();
  }
}
