/**
 * Diff lenses: on each rule of a ruleset file under git that the editor's text changes, what the change
 * does — with `rulekit.diff.capture`, the packets of that capture it blocks and allows that the base did
 * not (`blocks 3 more · allows 0 more packets of edge.pcap`); without, the regions that change (`2 regions
 * change: allow → block`). The lens's command and a hover over the rule show the regions with witnesses.
 *
 * The base is `git show REV:./file` (the `rulekit.diff.base` revision, default HEAD), run here, off the
 * editor's path: the request waits for typing to pause, the diff runs on its own thread
 * (../diff-client.ts), and answers are kept by (base text, current text, capture and its modification
 * time, settings). No git, an untracked file, a base without the file: no lenses, one log line.
 * @module
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CancellationToken, CodeLens } from 'vscode-languageserver/node';
import type { DocumentCheck } from '../check.js';
import { lspRange } from '../convert.js';
import { DiffLensClient } from '../diff-client.js';
import type { DiffLens, DiffLensResult } from '../diff-lenses.js';
import { gitShow } from '../git.js';
import type { Settings } from '../settings.js';

/** The lenses' command: shows a lens's regions (its one argument after the document's URI: their Markdown). */
export const SHOW_DIFF_COMMAND = 'rulekit.diff.showRegions';

/** What the lenses need of the server. */
export interface DiffLensHost {
  /** Quiet time (ms) after the last change before a diff is made. */
  delay: number;
  document(uri: string): TextDocument | undefined;
  check(doc: TextDocument): DocumentCheck;
  settings(uri: string): Settings;
  path(uri: string): string | undefined;
  log(line: string): void;
  /** Ask the client to ask for lenses again (workspace/codeLens/refresh), when it can. */
  refresh?(): void;
}

const NONE: DiffLensResult = { lenses: [] };
/** Diffs kept (by key), for undo and for documents switched between. */
const KEPT = 16;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DiffLenses {
  private readonly client = new DiffLensClient();
  private readonly lastChange = new Map<string, number>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly results = new Map<string, Promise<DiffLensResult>>();
  /** The last lenses answered per document, with the version they are for (hover reads them). */
  private readonly latest = new Map<string, { version: number; result: DiffLensResult }>();
  /** Documents whose lenses the client asked for: they are made again after each change. */
  private readonly asked = new Set<string>();
  private readonly logged = new Set<string>();

  constructor(private readonly host: DiffLensHost) {}

  /** A document changed: its next lenses wait for a pause, and are made then for clients that show them. */
  changed(uri: string): void {
    this.lastChange.set(uri, Date.now());
    if (!this.asked.has(uri) || !this.host.refresh) return;
    clearTimeout(this.timers.get(uri));
    this.timers.set(uri, setTimeout(() => {
      this.timers.delete(uri);
      const doc = this.host.document(uri);
      if (!doc) return;
      const before = this.latest.get(uri)?.result;
      this.current(doc).then((r) => {
        if (r && r.result !== before) this.host.refresh?.();
      }, () => undefined);
    }, this.host.delay));
  }

  /** The settings changed: clients showing lenses are asked to ask again. */
  refreshAll(): void {
    if (this.asked.size) this.host.refresh?.();
  }

  closed(uri: string): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    this.asked.delete(uri);
    this.latest.delete(uri);
    this.lastChange.delete(uri);
  }

  /** textDocument/codeLens: once typing pauses, the lenses of the document's text then. */
  async codeLenses(uri: string, token?: CancellationToken): Promise<CodeLens[]> {
    this.asked.add(uri);
    for (;;) {
      const wait = (this.lastChange.get(uri) ?? 0) + this.host.delay - Date.now();
      if (wait <= 0) break;
      await sleep(wait);
      if (token?.isCancellationRequested) return [];
    }
    const doc = this.host.document(uri);
    if (!doc) return [];
    const got = await this.current(doc);
    const now = this.host.document(uri);
    if (!got || !now || now.version !== got.version) return [];
    return got.result.lenses.map((l) => ({ range: lspRange(now, { start: l.start, end: l.start }), command: { title: l.title, command: SHOW_DIFF_COMMAND, arguments: [uri, l.detail] } }));
  }

  /** The detail of the innermost lens around an offset of the document's current version (for hover). */
  detailAt(doc: TextDocument, offset: number): string | undefined {
    const known = this.latest.get(doc.uri);
    if (!known || known.version !== doc.version) return undefined;
    let best: DiffLens | undefined;
    for (const l of known.result.lenses) if (l.start <= offset && offset <= l.end && (!best || l.end - l.start < best.end - best.start)) best = l;
    return best?.detail;
  }

  close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    return this.client.close();
  }

  /** The lenses of the document's current text (made, or kept from before). */
  private async current(doc: TextDocument): Promise<{ version: number; result: DiffLensResult } | undefined> {
    const version = doc.version;
    const result = await this.make(doc);
    if (this.host.document(doc.uri)?.version !== version) return undefined;
    const known = { version, result };
    this.latest.set(doc.uri, known);
    return known;
  }

  private async make(doc: TextDocument): Promise<DiffLensResult> {
    const path = this.host.path(doc.uri);
    if (!path) return NONE;
    const text = doc.getText();
    const check = this.host.check(doc);
    const ruleset = check.kind === 'terraform' ? /\bcloudflare_ruleset\b/.test(text) : (check.kind === 'json' || check.kind === 'yaml') && check.extracted.items.some((i) => 'value' in i && i.kind === 'ruleset');
    if (!ruleset) return NONE;
    const settings = this.host.settings(doc.uri);
    const base = settings.diff?.base ?? 'HEAD';
    const old = await gitShow(base, path);
    if ('reason' in old) {
      this.logOnce(`rulekit: no diff lenses for ${path}: ${old.reason}`);
      return NONE;
    }
    let capture: { path: string; stamp: string; name: string } | undefined;
    const capturePath = settings.diff?.capture;
    if (capturePath) {
      try {
        const st = statSync(capturePath);
        if (!st.isFile()) throw new Error('not a regular file');
        capture = { path: capturePath, stamp: `${st.mtimeMs} ${st.size}`, name: basename(capturePath) };
      } catch (e) {
        this.logOnce(`rulekit: rulekit.diff.capture ${capturePath} cannot be read (${(e as Error).message}); the lenses count no traffic`);
      }
    }
    const key = createHash('sha1').update([base, old.text, text, capture?.path ?? '', capture?.stamp ?? '', settings.id].join('\0')).digest('hex');
    let made = this.results.get(key);
    if (made) {
      this.results.delete(key);
      this.results.set(key, made);
      return made;
    }
    made = this.client.run({
      oldText: old.text,
      newText: text,
      path,
      oldName: `${base}:${basename(path)}`,
      ...(settings.plain.lists ? { lists: settings.plain.lists } : {}),
      ...(settings.plain.serviceToken ? { serviceToken: settings.plain.serviceToken } : {}),
      ...(capture ? { capture } : {}),
    }).catch((e: unknown) => {
      this.logOnce(`rulekit: no diff lenses for ${path}: ${(e as Error).message}`);
      this.results.delete(key);
      return NONE;
    });
    this.results.set(key, made);
    while (this.results.size > KEPT) this.results.delete(this.results.keys().next().value!);
    return made;
  }

  private logOnce(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.host.log(line);
  }
}
