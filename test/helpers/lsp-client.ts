/**
 * A real LSP client for tests: the built CLI (`node dist/bundle/cli.js lsp --stdio`) spawned, a
 * vscode-languageserver-protocol connection on its pipes, and helpers to wait for what it publishes.
 * Also used by bench/lsp.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter, InitializeRequest, InitializedNotification,
  PublishDiagnosticsNotification, ShutdownRequest, ExitNotification, DidOpenTextDocumentNotification,
  type ProtocolConnection, type PublishDiagnosticsParams, type InitializeResult,
} from 'vscode-languageserver-protocol/node';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'bundle', 'cli.js');

/** A started server and its client side. */
export interface LspSession {
  connection: ProtocolConnection;
  child: ChildProcess;
  initialized: InitializeResult;
  /** The next diagnostics published for `uri` that satisfy `until` (default: any). */
  diagnostics(uri: string, until?: (p: PublishDiagnosticsParams) => boolean, timeoutMs?: number): Promise<PublishDiagnosticsParams>;
  /** Open a document. */
  open(uri: string, languageId: string, text: string, version?: number): Promise<void>;
  /** Shut down, exit, and wait for the process to end; resolves to its exit code. */
  close(): Promise<number | null>;
  stderr(): string;
  /** Change what the client answers to `workspace/configuration`, and say so (didChangeConfiguration). */
  changeSettings(settings: unknown): Promise<void>;
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

/** Spawn `rulekit lsp --stdio` and initialize it. */
export async function startSession(options: { cwd?: string; args?: string[]; settings?: unknown; rootPath?: string } = {}): Promise<LspSession> {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio', ...(options.args ?? [])], { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const waiting: { uri: string; until: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
    for (let i = 0; i < waiting.length; i++) {
      const w = waiting[i]!;
      if (w.uri === p.uri && w.until(p)) {
        waiting.splice(i, 1);
        w.resolve(p);
        return;
      }
    }
  });
  // The server asks for the `rulekit` section; answer with the test's settings.
  let settings: unknown = options.settings ?? {};
  connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => params.items.map(() => settings));
  connection.onRequest('client/registerCapability', () => null);
  connection.onNotification('window/showMessage', () => undefined);
  connection.listen();
  const initialized = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: options.rootPath ? fileUri(options.rootPath) : null,
    capabilities: {
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
      textDocument: {
        synchronization: { didSave: false },
        publishDiagnostics: { versionSupport: true },
        completion: { completionItem: { snippetSupport: false, documentationFormat: ['markdown'] } },
        hover: { contentFormat: ['markdown'] },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
      },
    },
    workspaceFolders: null,
  });
  await connection.sendNotification(InitializedNotification.type, {});
  return {
    connection,
    child,
    initialized,
    diagnostics(uri, until = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const entry = { uri, until, resolve: (p: PublishDiagnosticsParams) => (clearTimeout(timer), resolve(p)) };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(entry), 1);
          reject(new Error(`no diagnostics for ${uri} within ${timeoutMs} ms; server stderr: ${err}`));
        }, timeoutMs);
        waiting.push(entry);
      });
    },
    async open(uri, languageId, text, version = 1) {
      await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } });
    },
    async close() {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
      const code = await exited;
      connection.dispose();
      return code;
    },
    stderr: () => err,
    async changeSettings(next) {
      settings = next;
      await connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    },
  };
}
