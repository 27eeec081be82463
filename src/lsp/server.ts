/**
 * The language server: documents synced incrementally, checked as they change, and one small handler per
 * feature (completion, hover, signature help, code actions, formatting, symbols), each advertised in
 * `initialize` only because it exists. Transport-free: `startServer` takes any connection (stdio in
 * main.ts, in-memory streams in tests).
 * @module
 */
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CodeActionKind, CodeLensRefreshRequest, DidChangeConfigurationNotification, MarkupKind, MessageType, ShowMessageNotification, TextDocuments, TextDocumentSyncKind,
  type Connection, type InitializeResult,
} from 'vscode-languageserver/node';
import { fullCheck, kindOf, quickCheck, type DocumentCheck } from './check.js';
import { FullChecker } from './full-check.js';
import { lspDiagnostic } from './convert.js';
import { codeActions, FIX_ALL_KIND } from './features/actions.js';
import { DiffLenses, SHOW_DIFF_COMMAND } from './features/diff-lens.js';
import { completion, hover, signatureHelp } from './features/completion.js';
import { formatting } from './features/formatting.js';
import { documentSymbols } from './features/symbols.js';
import { directoryOf, SettingsStore, type Settings } from './settings.js';
import { VERSION } from '../version.js';

/** Options of {@link startServer}. */
export interface ServerOptions {
  /**
   * Quiet time (ms) after the last change before the full check (ruleset analysis, Terraform's own
   * parser) runs; the quick check runs at once. Default 300.
   */
  fullCheckDelay?: number;
}

/** The server's version, as `initialize` reports it. */
export const SERVER_VERSION = VERSION;

/** The file path of a `file:` URI. */
function pathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** Serve the rulekit language features on a connection (which the caller has not yet started listening on). */
export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const fullDelay = options.fullCheckDelay ?? 300;
  const documents = new TextDocuments(TextDocument);
  const checks = new Map<string, DocumentCheck>();
  const fullTimers = new Map<string, ReturnType<typeof setTimeout>>();
  const pending = new Set<string>();
  const reported = new Set<string>();
  let store = new SettingsStore(process.cwd());
  let configurationRequests = false;
  let dynamicConfiguration = false;
  const checker = new FullChecker();
  let lensRefresh = false;
  const lenses = new DiffLenses({
    delay: fullDelay,
    document: (uri) => documents.get(uri),
    check: (doc) => current(doc),
    settings: (uri) => settingsOf(uri),
    path: pathOf,
    log: (line) => connection.console.log(line),
    refresh: () => {
      if (lensRefresh) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    },
  });
  /** Documents opened before the client's settings arrived: checked once they have (not twice). */
  let waitingForSettings: Set<string> | undefined = new Set();

  const settingsOf = (uri: string): Settings => {
    const s = store.forDirectory(directoryOf(pathOf(uri)));
    for (const p of s.problems) {
      if (reported.has(p)) continue;
      reported.add(p);
      void connection.window.showWarningMessage(`rulekit: ${p}`);
    }
    return s;
  };

  /** The quick check of the document's current version (computed when the cache holds an older one). */
  const current = (doc: TextDocument): DocumentCheck => {
    const known = checks.get(doc.uri);
    if (known && known.version === doc.version) return known;
    const text = doc.getText();
    const check = quickCheck(text, doc.version, kindOf(pathOf(doc.uri), doc.languageId, text), settingsOf(doc.uri));
    checks.set(doc.uri, check);
    return check;
  };

  const publish = (doc: TextDocument, check: DocumentCheck) => {
    void connection.sendDiagnostics({ uri: doc.uri, version: check.version, diagnostics: check.diagnostics.map((d) => lspDiagnostic(doc, d)) });
  };

  /** Check now (changes that arrived in the same turn are taken together), then the full check once quiet. */
  const schedule = (uri: string) => {
    if (waitingForSettings) {
      waitingForSettings.add(uri);
      return;
    }
    clearTimeout(fullTimers.get(uri));
    if (pending.has(uri)) return;
    pending.add(uri);
    setImmediate(() => {
      pending.delete(uri);
      const doc = documents.get(uri);
      if (!doc) return;
      const quick = current(doc);
      publish(doc, quick);
      fullTimers.set(uri, setTimeout(() => {
        fullTimers.delete(uri);
        const now = documents.get(uri);
        if (!now || now.version !== quick.version) return;
        fullCheck(checker, quick, now.getText(), settingsOf(uri)).then((full) => {
          const latest = documents.get(uri);
          if (!latest || latest.version !== full.version) return;
          checks.set(uri, full);
          publish(latest, full);
        }, (e: unknown) => connection.console.error(`rulekit: the full check of ${uri} failed: ${String(e)}`));
      }, fullDelay));
    });
  };

  const loadClientSettings = async () => {
    try {
      if (configurationRequests) {
        const [section] = (await connection.workspace.getConfiguration([{ section: 'rulekit' }])) as unknown[];
        store.setClient(section);
      }
    } finally {
      const waited = waitingForSettings;
      waitingForSettings = undefined;
      checks.clear();
      for (const doc of documents.all()) if (!waited || waited.has(doc.uri) || configurationRequests) schedule(doc.uri);
      // The diff lenses read rulekit.diff: shown lenses may say otherwise now.
      if (!waited) lenses.refreshAll();
    }
  };

  connection.onInitialize((params): InitializeResult => {
    const root = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
    store = new SettingsStore((root && pathOf(root)) || process.cwd());
    store.setClient((params.initializationOptions as { settings?: unknown } | undefined)?.settings);
    configurationRequests = params.capabilities.workspace?.configuration === true;
    dynamicConfiguration = params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true;
    lensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: ['.', '$', '"', ' ', '('], resolveProvider: false },
        hoverProvider: true,
        signatureHelpProvider: { triggerCharacters: ['(', ','] },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        documentFormattingProvider: true,
        documentSymbolProvider: true,
        codeLensProvider: { resolveProvider: false },
        executeCommandProvider: { commands: [SHOW_DIFF_COMMAND] },
      },
      serverInfo: { name: 'rulekit', version: SERVER_VERSION },
    };
  });
  connection.onInitialized(() => {
    if (dynamicConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'rulekit' });
    loadClientSettings().catch((e: unknown) => connection.console.error(`rulekit: could not read the settings: ${String(e)}`));
  });
  connection.onDidChangeConfiguration((change) => {
    if (configurationRequests) {
      loadClientSettings().catch((e: unknown) => connection.console.error(`rulekit: could not read the settings: ${String(e)}`));
      return;
    }
    store.setClient((change.settings as { rulekit?: unknown } | null)?.rulekit);
    checks.clear();
    for (const doc of documents.all()) schedule(doc.uri);
    lenses.refreshAll();
  });

  connection.onShutdown(() => Promise.all([checker.close(), lenses.close()]).then(() => undefined));
  // rulekit.config.json changed (clients that watch it say so): settings are re-read on the next check.
  connection.onDidChangeWatchedFiles(() => {
    store.invalidate();
    lenses.refreshAll();
    checks.clear();
    for (const doc of documents.all()) schedule(doc.uri);
  });

  documents.onDidOpen((e) => {
    checker.warm();
    schedule(e.document.uri);
  });
  documents.onDidChangeContent((e) => {
    lenses.changed(e.document.uri);
    schedule(e.document.uri);
  });
  documents.onDidClose((e) => {
    lenses.closed(e.document.uri);
    clearTimeout(fullTimers.get(e.document.uri));
    checks.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  const withDoc = <T>(uri: string, f: (doc: TextDocument, check: DocumentCheck) => T, none: T): T => {
    const doc = documents.get(uri);
    return doc ? f(doc, current(doc)) : none;
  };
  connection.onCompletion((p) => withDoc(p.textDocument.uri, (doc, c) => completion(doc, c, doc.offsetAt(p.position), settingsOf(doc.uri)), null));
  connection.onHover((p) => withDoc(p.textDocument.uri, (doc, c) => {
    const offset = doc.offsetAt(p.position);
    const h = hover(doc, c, offset, settingsOf(doc.uri));
    const diff = lenses.detailAt(doc, offset);
    if (!diff) return h;
    const before = h && typeof h.contents === 'object' && 'value' in h.contents ? `${h.contents.value}\n\n---\n\n` : '';
    return { contents: { kind: MarkupKind.Markdown, value: before + diff }, ...(h?.range ? { range: h.range } : {}) };
  }, null));
  connection.onCodeLens((p, token) => lenses.codeLenses(p.textDocument.uri, token));
  connection.onExecuteCommand((p) => {
    if (p.command !== SHOW_DIFF_COMMAND) return null;
    const detail = typeof p.arguments?.[1] === 'string' ? p.arguments[1] : '';
    // A notification: a client that does not answer window/showMessageRequest must not leave a promise to reject.
    void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message: detail });
    return detail;
  });
  connection.onSignatureHelp((p) => withDoc(p.textDocument.uri, (doc, c) => signatureHelp(c, doc.offsetAt(p.position), settingsOf(doc.uri)), null));
  connection.onCodeAction((p) => withDoc(p.textDocument.uri, (doc, c) => codeActions(doc, c, p), []));
  connection.onDocumentFormatting((p) => withDoc(p.textDocument.uri, (doc, c) => formatting(doc, c), []));
  connection.onDocumentSymbol((p) => withDoc(p.textDocument.uri, (doc, c) => documentSymbols(doc, c), []));

  documents.listen(connection);
}
