/**
 * Which files a lint run reads (Node only): paths, directories walked recursively, globs, `-` for standard
 * input; `.gitignore`-style excludes (`*` within a segment, `**` across segments, a leading or inner `/`
 * anchors at the base directory, a trailing `/` names directories, `!` re-includes; the last matching
 * pattern wins). Directories always skip `.git`, `node_modules` and `.terraform`.
 * @module
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { InputKind } from './types.js';

/** A file to lint: its path as shown, and whether it was named (not found by a walk). */
export interface LintTarget {
  path: string;
  /** Named on the command line: a file of no known shape is reported rather than skipped. */
  named: boolean;
}

/** Directories no walk enters. */
export const ALWAYS_SKIPPED = ['.git', 'node_modules', '.terraform'];

/** The kind of a file by its extension, if it says. */
export function kindOfPath(path: string): InputKind | undefined {
  const p = path.toLowerCase();
  if (p.endsWith('.tf')) return 'terraform';
  if (p.endsWith('.json')) return 'json';
  if (p.endsWith('.yaml') || p.endsWith('.yml')) return 'yaml';
  if (p.endsWith('.rules')) return 'rules';
  return undefined;
}

/** A glob as a regular expression over `/`-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Compiled exclude patterns. */
export class Excludes {
  private readonly rules: { re: RegExp; negate: boolean; dirOnly: boolean; anchored: boolean }[];

  constructor(patterns: readonly string[]) {
    this.rules = patterns
      .map((p) => p.trim())
      .filter((p) => p && !p.startsWith('#'))
      .map((p) => {
        const negate = p.startsWith('!');
        let body = negate ? p.slice(1) : p;
        const dirOnly = body.endsWith('/');
        if (dirOnly) body = body.slice(0, -1);
        const anchored = body.includes('/');
        if (body.startsWith('/')) body = body.slice(1);
        return { re: globToRegExp(body), negate, dirOnly, anchored };
      });
  }

  /** Whether a relative path (`/`-separated) is excluded, itself (not through a parent). */
  matches(rel: string, isDir: boolean): boolean {
    let excluded = false;
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.re.test(r.anchored ? rel : base) || (!r.anchored && r.re.test(rel))) excluded = !r.negate;
    }
    return excluded;
  }

  /** Whether a path or one of its parent directories is excluded. */
  excludes(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) if (this.matches(parts.slice(0, i).join('/'), true)) return true;
    return this.matches(rel, isDir);
  }
}

const hasGlob = (s: string) => /[*?[]/.test(s);
const posix = (p: string) => p.split(sep).join('/');

/**
 * The files named by the arguments, in order, without repeats. Throws `Error` with `code: 'ENOENT'` for a
 * path that does not exist and `code: 'ENOMATCH'` for a glob that matches nothing.
 */
export function resolveTargets(args: readonly string[], excludes: Excludes, root = process.cwd()): { targets: LintTarget[]; excludedNamed: string[] } {
  const cwd = process.cwd();
  const targets: LintTarget[] = [];
  const excludedNamed: string[] = [];
  const seen = new Set<string>();
  const add = (path: string, named: boolean) => {
    const key = resolve(cwd, path);
    if (seen.has(key)) return;
    seen.add(key);
    targets.push({ path, named });
  };
  // Excludes are relative to the root (the config file's directory, else the working directory).
  const relOf = (p: string) => posix(relative(root, resolve(cwd, p)));
  const walk = (dir: string, filter?: RegExp, filterPath?: (p: string) => string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      throw Object.assign(new Error(`${dir}: cannot read the directory (${(e as NodeJS.ErrnoException).code})`), { code: 'EDIR' });
    }
    for (const name of names) {
      const p = dir === '.' ? name : join(dir, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue; // a dangling link
      }
      const rel = relOf(p);
      if (st.isDirectory()) {
        if (ALWAYS_SKIPPED.includes(name) || excludes.matches(rel, true)) continue;
        walk(p, filter, filterPath);
      } else if (st.isFile() && kindOfPath(name) && !excludes.matches(rel, false)) {
        if (!filter || filter.test(filterPath!(p))) add(posix(p), false);
      }
    }
  };
  for (const arg of args) {
    if (arg === '-') {
      targets.push({ path: '-', named: true });
      continue;
    }
    if (hasGlob(arg)) {
      const parts = posix(arg).split('/');
      const fixed: string[] = [];
      while (parts.length > 1 && !hasGlob(parts[0]!)) fixed.push(parts.shift()!);
      const base = fixed.length ? fixed.join('/') : '.';
      const before = targets.length;
      try {
        const baseRel = posix(relative(cwd, resolve(cwd, base)));
        const pattern = globToRegExp(baseRel === '' ? parts.join('/') : `${baseRel}/${parts.join('/')}`);
        if (statSync(base).isDirectory()) walk(base, pattern, (p) => posix(relative(cwd, resolve(cwd, p))));
      } catch {
        // no base: no match
      }
      if (targets.length === before) throw Object.assign(new Error(`${arg}: no file matches this pattern`), { code: 'ENOMATCH' });
      continue;
    }
    const st = statSync(arg); // throws ENOENT with the path
    if (st.isDirectory()) walk(arg.replace(/\/+$/, '') || '/');
    else if (excludes.excludes(relOf(arg), false)) excludedNamed.push(arg);
    else add(arg, true);
  }
  return { targets, excludedNamed };
}
