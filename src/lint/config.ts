/**
 * `rulekit.config.json`, found from the working directory upward (as ESLint and ruff find theirs):
 *
 * ```json
 * { "$schema": "./node_modules/rulekit/schemas/rulekit.config.schema.json",
 *   "lists": "lists.json", "scheme": {"http.host": "String"}, "serviceToken": "svc",
 *   "severity": {"octal-literal": "error", "list-not-provided": "off"},
 *   "exclude": ["generated/", "**\/*.example.tf"], "maxSeverity": "warning",
 *   "ignore": [{"file": "rulesets/*.json", "pointer": "/rules/0/expression", "code": "octal-literal"}] }
 * ```
 *
 * `lists` and `scheme` are a file (relative to the config file) or the object itself; `severity` maps a
 * code to off, hint, info, warn(ing) or error; `exclude` holds `.gitignore`-style patterns relative to
 * the config file's directory; `ignore` suppresses findings at a JSON pointer (and below it) in the files a
 * glob relative to the config file matches, for the code given or every code (JSON has no comments for
 * `rulekit-disable-next-line`). A config that is not JSON, has unknown members or names an unknown code is
 * a usage error.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Severity } from '../diagnostics/index.js';
import { isKnownCode, unknownCodeMessage } from './code-names.js';
import { globToRegExp } from './files.js';
import type { PointerIgnore } from './suppress.js';

/** The file name looked for. */
export const CONFIG_FILE = 'rulekit.config.json';

/** A per-code severity setting. */
export type SeveritySetting = Severity | 'off';

/** A loaded config. */
export interface LintConfig {
  /** Path of the file, when one was read. */
  path?: string;
  /** Directory excludes and relative paths are resolved against. */
  root: string;
  lists?: string | Record<string, string[]>;
  scheme?: string | Record<string, string>;
  serviceToken?: string;
  severity: Record<string, SeveritySetting>;
  exclude: string[];
  maxSeverity?: Severity;
  ignore: IgnoreEntry[];
}

/** An entry of the config's `ignore`. */
export interface IgnoreEntry {
  /** Glob (or path) relative to the config file's directory. */
  file: string;
  /** RFC 6901 pointer; findings at it or below it are suppressed (`""`: the whole file). */
  pointer: string;
  /** Only this code (default: every code). */
  code?: string;
}

/** A config problem (exit 2). */
export class ConfigError extends Error {}

/**
 * The members a config may have, with what each is for: the loader accepts these and no other, and
 * schemas/rulekit.config.schema.json is generated from this table (`npm run schema:gen`; a test compares).
 */
export const CONFIG_MEMBERS = {
  $schema: 'The JSON Schema of this file, for editors: ./node_modules/rulekit/schemas/rulekit.config.schema.json.',
  lists: 'Account lists the rules may use: a JSON file relative to this one, or the object {"name": ["192.0.2.0/24", ...]}.',
  scheme: 'The field scheme: a JSON file relative to this one, or the object {"http.host": "String", ...}. Default: the network fields.',
  serviceToken: 'Service token of the managed lists ($svc.anonymizer with svc, the default).',
  severity: 'Severity of a code: off, hint, info, warn (warning) or error; over the code\'s default, under --severity.',
  exclude: '.gitignore-style patterns of paths to skip, relative to this file\'s directory.',
  maxSeverity: 'Findings at or above this severity fail the run (default error; --max-severity wins).',
  ignore: 'Findings to suppress at a JSON pointer (and below it) in the files a glob relative to this file matches: JSON has no comments for rulekit-disable-next-line.',
} as const;
const MEMBERS: readonly string[] = Object.keys(CONFIG_MEMBERS);

/** Parse a severity word of the config or the command line. */
export function severitySetting(v: unknown): SeveritySetting | undefined {
  switch (v) {
    case 'off': return 'off';
    case 'hint': return 'hint';
    case 'info': return 'info';
    case 'warn': case 'warning': return 'warning';
    case 'error': return 'error';
    default: return undefined;
  }
}

/** The nearest config file from `dir` upward, or undefined. */
export function findConfig(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    const p = join(d, CONFIG_FILE);
    if (existsSync(p)) return p;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/** Load a config file (or the empty config rooted at `cwd` when `path` is undefined). */
export function loadConfig(path: string | undefined, cwd = process.cwd()): LintConfig {
  if (!path) return { root: cwd, severity: {}, exclude: [], ignore: [] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON (${(e as Error).message})`}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${path}: the config is a JSON object`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!MEMBERS.includes(k)) throw new ConfigError(`${path}: unknown member "${k}" (members: ${MEMBERS.slice(1).join(', ')})`);
  const config: LintConfig = { path, root: dirname(resolve(path)), severity: {}, exclude: [], ignore: [] };
  const fileOrObject = (k: 'lists' | 'scheme') => {
    const v = o[k];
    if (v === undefined) return;
    if (typeof v === 'string') config[k] = resolve(config.root, v);
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) (config as unknown as Record<string, unknown>)[k] = v;
    else throw new ConfigError(`${path}: "${k}" is a file name or an object`);
  };
  fileOrObject('lists');
  fileOrObject('scheme');
  if (o['serviceToken'] !== undefined) {
    if (typeof o['serviceToken'] !== 'string') throw new ConfigError(`${path}: "serviceToken" is a string`);
    config.serviceToken = o['serviceToken'];
  }
  if (o['severity'] !== undefined) {
    const s = o['severity'];
    if (typeof s !== 'object' || s === null || Array.isArray(s)) throw new ConfigError(`${path}: "severity" maps codes to off, info, warn or error`);
    for (const [code, level] of Object.entries(s)) {
      if (!isKnownCode(code)) throw new ConfigError(`${path}: "severity": ${unknownCodeMessage(code)}`);
      const v = severitySetting(level);
      if (!v) throw new ConfigError(`${path}: severity of ${code} is ${JSON.stringify(level)}; use off, hint, info, warn or error`);
      config.severity[code] = v;
    }
  }
  if (o['exclude'] !== undefined) {
    if (!Array.isArray(o['exclude']) || !o['exclude'].every((x) => typeof x === 'string')) throw new ConfigError(`${path}: "exclude" is an array of patterns`);
    config.exclude = o['exclude'] as string[];
  }
  if (o['maxSeverity'] !== undefined) {
    const v = severitySetting(o['maxSeverity']);
    if (!v || v === 'off') throw new ConfigError(`${path}: "maxSeverity" is error, warning, info or hint`);
    config.maxSeverity = v;
  }
  if (o['ignore'] !== undefined) {
    const shape = '{"file": "<glob relative to the config>", "pointer": "/rules/0/expression", "code"?: "<code>"}';
    if (!Array.isArray(o['ignore'])) throw new ConfigError(`${path}: "ignore" is an array of ${shape}`);
    o['ignore'].forEach((e: unknown, i) => {
      const at = `${path}: ignore[${i}]`;
      if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new ConfigError(`${at} is not an object; give ${shape}`);
      const entry = e as Record<string, unknown>;
      const extra = Object.keys(entry).find((k) => !['file', 'pointer', 'code'].includes(k));
      if (extra) throw new ConfigError(`${at}: unknown member "${extra}" (members: file, pointer, code)`);
      if (typeof entry['file'] !== 'string' || !entry['file']) throw new ConfigError(`${at}: "file" is a glob or path relative to the config file`);
      if (typeof entry['pointer'] !== 'string' || (entry['pointer'] !== '' && !entry['pointer'].startsWith('/'))) throw new ConfigError(`${at}: "pointer" is a JSON pointer such as "/rules/0/expression" ("" for the whole file)`);
      if (entry['code'] !== undefined && (typeof entry['code'] !== 'string' || !isKnownCode(entry['code']))) throw new ConfigError(`${at}: "code": ${unknownCodeMessage(String(entry['code']))}`);
      config.ignore.push({ file: entry['file'], pointer: entry['pointer'], ...(entry['code'] !== undefined ? { code: entry['code'] as string } : {}) });
    });
  }
  return config;
}

/**
 * The config's `ignore` entries as a lookup by file (the path as shown, relative to the working
 * directory), and those that matched a file but suppressed nothing, for the caller to name.
 */
export function configIgnores(config: LintConfig, cwd = process.cwd()): { forFile: (path: string) => PointerIgnore[]; unused: () => IgnoreEntry[] } {
  const entries = config.ignore.map((e) => ({ entry: e, re: globToRegExp(e.file.replace(/^\.\//, '')), state: { pointer: e.pointer, code: e.code } as PointerIgnore, matched: false }));
  return {
    forFile: (path) => {
      const rel = relative(config.root, resolve(cwd, path)).split(sep).join('/');
      const hits = entries.filter((e) => e.re.test(rel));
      for (const h of hits) h.matched = true;
      return hits.map((h) => h.state);
    },
    unused: () => entries.filter((e) => e.matched && !e.state.used).map((e) => e.entry),
  };
}
