/**
 * Which files `rulekit test` runs: the files named, and under each directory named (the working
 * directory when none is) every `*.ruletest.yaml`, `*.ruletest.yml` and `*.ruletest.json`, in path order;
 * `node_modules` and dot-directories are not walked.
 * @module
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The name pattern of test files found in directories. */
export const TEST_FILE_PATTERN = /\.ruletest\.(?:ya?ml|json)$/i;

/** The test files of the arguments; a missing path is thrown as an ENOENT error naming it. */
export function findTestFiles(args: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(join(dir, e.name));
      } else if (TEST_FILE_PATTERN.test(e.name)) out.push(join(dir, e.name));
    }
  };
  for (const a of args.length ? args : ['.']) {
    if (statSync(a).isDirectory()) walk(a);
    else out.push(a);
  }
  return [...new Set(out)];
}
