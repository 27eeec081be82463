/** `npm run vscode:build`: the VS Code extension's bundle (editors/vscode/dist/extension.js), from the root. */
import { build } from 'esbuild';
import { options } from '../editors/vscode/build.mjs';

await build(options);
console.log(`wrote ${options.outfile}`);
