/**
 * Bundles the extension into dist/extension.js with esbuild: one CommonJS file (what VS Code loads), the
 * `vscode` module left to the editor. Run from this folder after `npm install`, or from the repository
 * root with `npm run vscode:build` (which resolves vscode-languageclient from the root's dev dependencies).
 */
import { build } from 'esbuild';

export const options = {
  entryPoints: [new URL('./src/extension.ts', import.meta.url).pathname],
  outfile: new URL('./dist/extension.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  sourcemap: true,
  logLevel: 'warning',
};

if (import.meta.url === `file://${process.argv[1]}`) await build(options);
