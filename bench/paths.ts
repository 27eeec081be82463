/**
 * What the whole-process benches start, in one place: the build layout may change (an esbuild bundle of
 * the CLI, say) and these are the only lines to change then. Absolute paths, from the checkout's root.
 */
import { fileURLToPath } from 'node:url';

/** The library's entry point, as `import('rulekit')` resolves it. */
export const LIBRARY_ENTRY = fileURLToPath(new URL('../dist/bundle/index.js', import.meta.url));

/** The CLI (`rulekit` on the PATH runs this file). */
export const CLI_ENTRY = fileURLToPath(new URL('../dist/bundle/cli.js', import.meta.url));
