/**
 * The VS Code client of `rulekit lsp`: starts the server on stdio for `.rules` files and for JSON, YAML and
 * Terraform files (the server reports only on the ruleset and Logpush bodies and resources it finds in
 * them), and passes the `rulekit.*` settings through `workspace/configuration`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workspace, type ExtensionContext } from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

/** The rulekit command: the setting, else the workspace's own install, else the PATH. */
function rulekitCommand(): string {
  const configured = workspace.getConfiguration('rulekit').get<string>('path');
  if (configured) return configured;
  for (const folder of workspace.workspaceFolders ?? []) {
    const local = join(folder.uri.fsPath, 'node_modules', '.bin', process.platform === 'win32' ? 'rulekit.cmd' : 'rulekit');
    if (existsSync(local)) return local;
  }
  return 'rulekit';
}

export async function activate(context: ExtensionContext): Promise<void> {
  const command = rulekitCommand();
  // TransportKind.stdio makes the client add --stdio to the arguments.
  const serverOptions: ServerOptions = {
    run: { command, args: ['lsp'], transport: TransportKind.stdio },
    debug: { command, args: ['lsp'], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'rulekit' },
      { scheme: 'untitled', language: 'rulekit' },
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'terraform' },
    ],
    synchronize: { configurationSection: 'rulekit', fileEvents: workspace.createFileSystemWatcher('**/rulekit.config.json') },
  };
  client = new LanguageClient('rulekit', 'rulekit', serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
