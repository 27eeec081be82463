/**
 * `rulekit.config.json`, found from the working directory upward (as ESLint and ruff find theirs):
 *
 * ```json
 * { "lists": "lists.json", "scheme": {"http.host": "String"}, "serviceToken": "svc",
 *   "severity": {"octal-literal": "error", "list-not-provided": "off"},
 *   "exclude": ["generated/", "**\/*.example.tf"], "maxSeverity": "warning" }
 * ```
 *
 * `lists` and `scheme` are a file (relative to the config file) or the object itself; `severity` maps a
 * code to off, hint, info, warn(ing) or error; `exclude` holds `.gitignore`-style patterns relative to
 * the config file's directory. A config that is not JSON or has unknown members is a usage error.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Severity } from '../diagnostics/index.js';
import { isKnownCode, unknownCodeMessage } from './codes.js';

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
}

/** A config problem (exit 2). */
export class ConfigError extends Error {}

const MEMBERS = ['$schema', 'lists', 'scheme', 'serviceToken', 'severity', 'exclude', 'maxSeverity'];

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
  if (!path) return { root: cwd, severity: {}, exclude: [] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON (${(e as Error).message})`}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${path}: the config is a JSON object`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!MEMBERS.includes(k)) throw new ConfigError(`${path}: unknown member "${k}" (members: ${MEMBERS.slice(1).join(', ')})`);
  const config: LintConfig = { path, root: dirname(resolve(path)), severity: {}, exclude: [] };
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
  return config;
}
