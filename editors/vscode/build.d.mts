/** Types of build.mjs (for the repository's test that bundles the extension). */
import type { BuildOptions } from 'esbuild';
export declare const options: BuildOptions & { outfile: string };
