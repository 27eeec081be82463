/**
 * The parts of rulekit that only some users install: the reference server and its stores, and the SQL
 * engines. They are optional peer dependencies (package.json), so that a validator or a CI lint installs
 * the core alone (a few megabytes, no native build); whoever runs a part installs its packages beside
 * rulekit. Each is loaded on first use, and a missing one is reported as the line to run.
 *
 * The package names and major versions are written out here (the CLI bundle does not carry the
 * manifest); test/meta/optional-parts.test.ts holds them equal to package.json's peerDependencies.
 * @module
 */

/** One optional part: what needs it, and the packages (with the major version rulekit is built against). */
export interface OptionalPart {
  /** What a user does that needs the part, for messages ("needed for rulekit query and --engine duckdb"). */
  readonly neededFor: string;
  /** npm package name → major version. */
  readonly packages: Readonly<Record<string, string>>;
}

export const OPTIONAL_PARTS = {
  server: { neededFor: 'rulekit serve and rulekit/server', packages: { fastify: '5', '@fastify/swagger': '9', 'fastify-plugin': '6' } },
  sqlite: { neededFor: "the server's SQLite store, its default", packages: { 'better-sqlite3': '12' } },
  postgres: { neededFor: "the server's PostgreSQL store, --database-url postgres://…", packages: { pg: '8' } },
  duckdb: { neededFor: 'rulekit query and --engine duckdb', packages: { '@duckdb/node-api': '1.5.5-r.5' } },
  chdb: { neededFor: '--engine clickhouse, ClickHouse embedded: about 540 MB, Linux and macOS', packages: { chdb: '3' } },
  clickhouse: { neededFor: '--clickhouse-url, a ClickHouse server', packages: { '@clickhouse/client': '1' } },
} as const satisfies Record<string, OptionalPart>;

export type OptionalPartName = keyof typeof OPTIONAL_PARTS;

/** The command that installs the parts, e.g. `npm install fastify@5 @fastify/swagger@9`. */
export function installLine(...parts: OptionalPartName[]): string {
  const specs = parts.flatMap((p) => Object.entries(OPTIONAL_PARTS[p].packages).map(([name, version]) => `${name}@${version}`));
  return `npm install ${[...new Set(specs)].join(' ')}`;
}

/** A package of an optional part that is not installed: its message is the one line a user reads. */
export class MissingPartError extends Error {
  /**
   * `missing`: the package not found; `part`: its part; `install`: the parts to install together (a
   * command that needs several says them all in one line).
   */
  constructor(readonly missing: string, readonly part: OptionalPartName, readonly install: readonly OptionalPartName[] = [part]) {
    super(`${missing} is not installed (needed for ${OPTIONAL_PARTS[part].neededFor}); install it with: ${installLine(...install)}`);
    this.name = 'MissingPartError';
  }
}

/**
 * The optional package a failed import could not find, with its part; undefined for any other failure
 * (a package that is installed but broken is not reported as missing).
 */
export function missingPartOf(error: unknown): { part: OptionalPartName; missing: string } | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = String((error as { message?: unknown }).message);
  for (const [part, { packages }] of Object.entries(OPTIONAL_PARTS) as [OptionalPartName, OptionalPart][]) {
    for (const name of Object.keys(packages)) {
      if (message.includes(`'${name}'`) || message.includes(`"${name}"`)) return { part, missing: name };
    }
  }
  return undefined;
}

/**
 * `load()`, or a {@link MissingPartError} when it fails for want of a package of an optional part; the
 * error's install line names every part of `install` (those the caller needs together).
 */
export async function loadPart<T>(install: readonly OptionalPartName[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const found = missingPartOf(error);
    if (found) throw new MissingPartError(found.missing, found.part, install.includes(found.part) ? install : [...install, found.part]);
    throw error;
  }
}
