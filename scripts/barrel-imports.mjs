/**
 * A rewriting of the sources for esbuild (scripts/bundle.mjs applies it to the CLI's bundle) that sends
 * each named import of a folder's index.ts to the module that defines the name. The sources enter a folder only through its index.ts (test/meta/dependencies.test.ts), and esbuild
 * assigns whole files to chunks by which entry points reach them, import by import: through an index, a
 * command that reads one table of a folder reached every module of it, and everything those import
 * (`rulekit check` read the phase catalog through src/ruleset/index.ts and so loaded the Logpush datasets
 * that ruleset validation imports). Rewritten, it reaches the modules whose names it uses.
 *
 * Only `import { a, b as c } from '…/index.js'` is rewritten, and only for names found in the index's own
 * `export { … } from` and `export * from` lines (followed through indexes that re-export indexes); a name
 * the index declares itself, or that the rewriting cannot place, is still imported from the index. The
 * project's modules build their tables for their own exports and do nothing else at import, so skipping
 * an index's other modules changes no behaviour (entry points, which do act, are never skipped).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `export { a, b as c, type T } from './x.js'` (multi-line too), `export * from './x.js'`. */
const RE_EXPORT_FROM = /export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'|export\s+\*\s+from\s*'([^']+)'/g;
/** Names a module declares and exports itself. */
const DECLARED = /export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|enum)\s+([A-Za-z_$][\w$]*)/g;
/** `export { a, b as c }` without `from`: names bound in the module itself. */
const LOCAL_EXPORT_LIST = /export\s+\{([^}]*)\}\s*;/g;
/** The named imports of an index: `import { … } from '….index.js'` (not `import type`). */
const IMPORT_FROM_INDEX = /import\s+\{([^}]*)\}\s*from\s*'((?:\.\.?\/)+(?:[\w-]+\/)*index\.js)';/g;

/** A source path of an import specifier ('./x.js' → …/x.ts). @type {(from: string, specifier: string) => string} */
function sourcePath(from, specifier) {
  return resolve(dirname(from), specifier).replace(/\.js$/, '.ts');
}

/** `a`, `b as c`, `type T` → [{ name, alias, type }]. @type {(list: string) => { name: string, alias: string, type: boolean }[]} */
function specifiers(list) {
  return list.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const type = /^type\s+/.test(s);
    const [name, alias] = s.replace(/^type\s+/, '').split(/\s+as\s+/);
    return { name: name.trim(), alias: (alias ?? name).trim(), type };
  });
}

/** The rewriting, as a function of (path, source); `root` is the absolute path of src/ (only modules there are rewritten). */
/** @type {(root: string) => (path: string, src: string) => string} */
export function barrelImports(root) {
  /** index path → Map(exported name → { file, name }) @type {Map<string, Map<string, { file: string, name: string }>>} */
  const tables = new Map();
  /** @type {(path: string) => string} */
  const text = (path) => readFileSync(path, 'utf8');

  /** What a module exports itself (names only). @type {(path: string) => Set<string>} */
  function ownNames(path) {
    const src = text(path);
    const names = new Set([...src.matchAll(DECLARED)].map((m) => m[1]));
    for (const m of src.matchAll(LOCAL_EXPORT_LIST)) for (const s of specifiers(m[1])) if (!s.type) names.add(s.alias);
    return names;
  }

  /** Where each name an index re-exports is defined. @type {(index: string) => Map<string, { file: string, name: string }>} */
  function table(index) {
    let t = tables.get(index);
    if (t) return t;
    t = new Map();
    tables.set(index, t);
    for (const m of text(index).matchAll(RE_EXPORT_FROM)) {
      if (m[1]) continue; // export type { … }
      const file = sourcePath(index, m[3] ?? m[4]);
      const nested = file.endsWith('/index.ts') ? table(file) : undefined;
      if (m[4]) {
        // export * from: the module's own names (a nested index: what it places).
        if (nested) for (const [name, place] of nested) t.set(name, place);
        else for (const name of ownNames(file)) t.set(name, { file, name });
        continue;
      }
      for (const s of specifiers(m[2])) {
        if (s.type) continue;
        t.set(s.alias, nested?.get(s.name) ?? { file, name: s.name });
      }
    }
    return t;
  }

  /** The source of `path` with its named imports of indexes sent to the defining modules. */
  return function rewrite(path, src) {
    if (!path.startsWith(root)) return src;
    return src.replace(IMPORT_FROM_INDEX, (/** @type {string} */ whole, /** @type {string} */ list, /** @type {string} */ specifier) => {
      const index = sourcePath(path, specifier);
      const t = table(index);
      /** @type {Map<string, string[]>} */
      const byFile = new Map();
      const keep = [];
      for (const s of specifiers(list)) {
        if (s.type) continue; // erased by TypeScript: dropped here, not kept as an import of the index
        const place = t.get(s.name);
        if (!place) { keep.push(s); continue; }
        const rel = relativeSpecifier(path, place.file);
        const names = byFile.get(rel) ?? [];
        byFile.set(rel, names);
        names.push(place.name === s.alias ? s.alias : `${place.name} as ${s.alias}`);
      }
      const lines = [...byFile].map(([file, names]) => `import { ${names.join(', ')} } from '${file}';`);
      if (keep.length) lines.push(`import { ${keep.map((s) => `${s.name === s.alias ? s.name : `${s.name} as ${s.alias}`}`).join(', ')} } from '${specifier}';`);
      // One line for the statement's lines, so that the source map's line numbers still hold.
      return lines.join(' ') + '\n'.repeat((whole.match(/\n/g) ?? []).length);
    });
  };
}

/** './x.js' or '../f/x.js' from one source file to another. @type {(from: string, to: string) => string} */
function relativeSpecifier(from, to) {
  const fromParts = dirname(from).split('/');
  const toParts = to.split('/');
  let i = 0;
  while (i < fromParts.length && fromParts[i] === toParts[i]) i++;
  const up = fromParts.length - i;
  const rest = toParts.slice(i).join('/').replace(/\.ts$/, '.js');
  return (up ? '../'.repeat(up) : './') + rest;
}
