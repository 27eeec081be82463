/** The optional parts' table (src/optional-parts.ts) against package.json, and its messages. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONAL_PARTS, installLine, loadPart, missingPartOf, MissingPartError } from '../../src/optional-parts.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('optional parts', () => {
  it('are exactly the optional peer dependencies, at their major versions, and installed for the repository', () => {
    const table = Object.fromEntries(Object.values(OPTIONAL_PARTS).flatMap((p) => Object.entries(p.packages)));
    expect(Object.keys(table).sort()).toEqual(Object.keys(pkg.peerDependencies).sort());
    for (const [name, major] of Object.entries(table)) {
      const range = pkg.peerDependencies[name]!;
      expect(range.replace(/^\^/, '').startsWith(major), `${name}: ${range} vs ${major}`).toBe(true);
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(pkg.devDependencies[name], `${name} is a devDependency too (npm ci && npm start/test use it)`).toBe(range);
      expect(pkg.dependencies[name], `${name} is not a dependency`).toBeUndefined();
    }
  });
  it('say the install line, and only for a package of theirs that is missing', async () => {
    expect(installLine('server', 'sqlite')).toBe('npm install fastify@5 @fastify/swagger@9 fastify-plugin@6 better-sqlite3@12');
    const missing = Object.assign(new Error("Cannot find package 'pg' imported from /x/dist/bundle/cli-chunk.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(missingPartOf(missing)).toEqual({ part: 'postgres', missing: 'pg' });
    const error = await loadPart(['server', 'postgres'], () => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPartError);
    expect((error as Error).message).toBe("pg is not installed (needed for the server's PostgreSQL store, --database-url postgres://…); install it with: npm install fastify@5 @fastify/swagger@9 fastify-plugin@6 pg@8");
    const other = Object.assign(new Error("Cannot find package 'left-pad'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadPart(['server'], () => Promise.reject(other))).rejects.toBe(other);
    const broken = new Error("'better-sqlite3' was compiled against a different Node.js version");
    await expect(loadPart(['sqlite'], () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
