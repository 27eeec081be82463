/**
 * What a document is checked with: the lint config file (`rulekit.config.json`, found from the document's
 * directory upward, as `rulekit lint` finds it) overlaid with the client's `rulekit` settings
 * (`workspace/configuration`): lists, scheme, service token, per-code severities. Lists and schemes may be
 * files, read relative to the file that names them. A setting that cannot be read is reported once and
 * left out; checking goes on without it.
 * @module
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ListCatalog, Scheme, type ExpressionOptions, type ListItems, type SchemeLiteral } from '../expression/index.js';
import { findConfig, isKnownCode, loadConfig, severitySetting, unknownCodeMessage, type SeveritySetting } from '../lint/index.js';

/** The client's `rulekit` section. */
export interface ClientSettings {
  /** Lists by name (`{"office": ["192.0.2.0/24"]}`) or a JSON file of them. */
  lists?: string | Record<string, string[]>;
  /** Extra fields (`{"http.host": "String"}`) or a JSON file of them. */
  scheme?: string | Record<string, string>;
  serviceToken?: string;
  /** Code → off, hint, info, warn(ing), error. */
  severity?: Record<string, string>;
  /** The diff lenses: the traffic counted (a file relative to the workspace) and the git revision compared with. */
  diff?: { capture?: string; base?: string };
}

/** The diff lenses' settings, resolved. */
export interface DiffSettings {
  /** The git revision the editor's text is compared with (default HEAD). */
  base: string;
  /** Absolute path of the capture or NDJSON file counted, when one is set. */
  capture?: string;
}

/** The settings as plain data (what a worker thread is sent). */
export interface PlainSettings {
  lists?: ListItems;
  scheme?: SchemeLiteral;
  serviceToken?: string;
  severity: Record<string, SeveritySetting>;
}

/** What checks read. */
export interface Settings {
  /** Tells settings apart (a worker builds each once). */
  id: number;
  plain: PlainSettings;
  expression: ExpressionOptions;
  severity: Record<string, SeveritySetting>;
  /** The diff lenses' settings (absent: base HEAD, no capture). */
  diff?: DiffSettings;
  /** Why part of the settings was left out. */
  problems: string[];
}

let nextId = 1;

/** How long a directory's settings are used before the config file is looked for again (ms). */
const RECHECK_MS = 2000;

/**
 * The expression options of plain settings. The list catalog and the scheme are built once here, not
 * per keystroke: the ruleset validator caches each expression's check per catalog and scheme object, so
 * a change re-checks only the expression it touched.
 */
export function expressionOptions(plain: PlainSettings, problems: string[] = []): ExpressionOptions {
  const expression: ExpressionOptions = {};
  if (plain.lists) expression.lists = ListCatalog.from(plain.lists, { serviceToken: plain.serviceToken });
  if (plain.scheme) {
    const built = Scheme.fromLiteral(plain.scheme);
    problems.push(...built.problems.map((p) => `scheme: ${p}`));
    expression.scheme = built.scheme;
  }
  if (plain.serviceToken) expression.serviceToken = plain.serviceToken;
  return expression;
}

function readJsonObject(path: string, what: string, problems: string[]): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    problems.push(`${path}: ${what} is a JSON object`);
  } catch (e) {
    problems.push(`${path}: ${what} could not be read (${(e as Error).message})`);
  }
  return undefined;
}

/** A file's modification time, for the cache (undefined when it is gone). */
function mtime(path: string | undefined): number | undefined {
  if (!path) return undefined;
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Resolves and caches settings per directory; the cache follows the config file's modification time. */
export class SettingsStore {
  private client: ClientSettings = {};
  private clientRoot: string;
  private readonly cache = new Map<string, { settings: Settings; config?: string; stamp?: number; checkedAt: number }>();

  constructor(root: string) {
    this.clientRoot = root;
  }

  /** Replace the client's settings (after `workspace/configuration` or a configuration change). */
  setClient(settings: unknown, root?: string): void {
    this.client = typeof settings === 'object' && settings !== null && !Array.isArray(settings) ? (settings as ClientSettings) : {};
    if (root) this.clientRoot = root;
    this.cache.clear();
  }

  /**
   * Settings for a document in `dir` (the working directory for documents that are not files). Every few
   * seconds at most, the config file is looked for again and its modification time compared, so that a
   * config created or edited meanwhile is read without a client that watches files.
   */
  forDirectory(dir: string | undefined): Settings {
    const key = dir ?? this.clientRoot;
    const known = this.cache.get(key);
    const now = Date.now();
    if (known && now - known.checkedAt < RECHECK_MS) return known.settings;
    const config = findConfig(key);
    const stamp = mtime(config);
    if (known && known.config === config && known.stamp === stamp) {
      known.checkedAt = now;
      return known.settings;
    }
    const settings = this.resolve(config);
    this.cache.set(key, { settings, config, stamp, checkedAt: now });
    return settings;
  }

  /** Forget what was read (a watched config file changed). */
  invalidate(): void {
    this.cache.clear();
  }

  private resolve(configPath: string | undefined): Settings {
    const problems: string[] = [];
    let config;
    try {
      config = loadConfig(configPath, this.clientRoot);
    } catch (e) {
      problems.push((e as Error).message);
      config = loadConfig(undefined, this.clientRoot);
    }
    const severity: Record<string, SeveritySetting> = { ...config.severity };
    for (const [code, level] of Object.entries(this.client.severity ?? {})) {
      const s = severitySetting(level);
      if (!isKnownCode(code)) problems.push(`rulekit.severity: ${unknownCodeMessage(code)}`);
      else if (s) severity[code] = s;
      else problems.push(`rulekit.severity: ${code} is ${JSON.stringify(level)}; use off, hint, info, warn or error`);
    }
    const pick = (v: unknown, base: string, what: string): Record<string, unknown> | undefined => {
      if (typeof v === 'string') return readJsonObject(isAbsolute(v) ? v : resolve(base, v), what, problems);
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    };
    // A config file's relative paths were resolved by loadConfig; the client's are relative to the workspace.
    const lists = pick(this.client.lists, this.clientRoot, 'the lists file') ?? pick(config.lists, config.root, 'the lists file');
    const scheme = pick(this.client.scheme, this.clientRoot, 'the scheme file') ?? pick(config.scheme, config.root, 'the scheme file');
    const serviceToken = typeof this.client.serviceToken === 'string' ? this.client.serviceToken : config.serviceToken;
    const plain: PlainSettings = { severity };
    if (lists) plain.lists = lists as ListItems;
    if (scheme) plain.scheme = scheme as SchemeLiteral;
    if (serviceToken) plain.serviceToken = serviceToken;
    const expression = expressionOptions(plain, problems);
    return { id: nextId++, plain, expression, severity, diff: this.diffSettings(problems), problems };
  }

  private diffSettings(problems: string[]): DiffSettings {
    const given = this.client.diff;
    const out: DiffSettings = { base: 'HEAD' };
    if (given === undefined || given === null) return out;
    if (typeof given !== 'object' || Array.isArray(given)) {
      problems.push('rulekit.diff is an object ({"capture": "capture.pcap", "base": "HEAD"})');
      return out;
    }
    if (typeof given.base === 'string' && given.base.trim()) out.base = given.base.trim();
    else if (given.base !== undefined && given.base !== '' && given.base !== null) problems.push('rulekit.diff.base is a git revision (HEAD, main, HEAD~1)');
    if (typeof given.capture === 'string' && given.capture.trim()) out.capture = isAbsolute(given.capture) ? given.capture : resolve(this.clientRoot, given.capture);
    else if (given.capture !== undefined && given.capture !== '' && given.capture !== null) problems.push('rulekit.diff.capture is the path of a pcap/pcapng capture or an NDJSON file');
    return out;
  }
}

/** The directory of a `file:` URI's path (undefined for other schemes). */
export function directoryOf(path: string | undefined): string | undefined {
  return path ? dirname(path) : undefined;
}
