/**
 * The playground: src/playground/main.ts bundled for the browser (one classic script, so the page also
 * works opened from disk) with index.html, the stylesheet and the favicon beside it, into dist/playground/. The
 * server (`/`) and `rulekit playground` serve that directory. Run by `npm run build`, after bundle.mjs.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const out = new URL('../dist/playground/', import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { playground: 'src/playground/main.ts' },
  outdir: 'dist/playground',
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
  // jsonc-parser's "main" is a UMD build whose require()s esbuild cannot follow: take the ES modules.
  mainFields: ['browser', 'module', 'main'],
});

copyFileSync(new URL('../src/playground/index.html', import.meta.url), new URL('index.html', out));
copyFileSync(new URL('../src/playground/style.css', import.meta.url), new URL('playground.css', out));
copyFileSync(new URL('../src/playground/favicon.svg', import.meta.url), new URL('favicon.svg', out));
