/**
 * `rulekit lsp`: the language server on standard input and output. Anything written to stdout that is
 * not a protocol message breaks the stream, so console output goes to stderr (clients show it as the
 * server's log).
 * @module
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer, type ServerOptions } from './server.js';

/** Run the server on stdio until the client sends `exit`. */
export function runStdio(options: ServerOptions = {}): void {
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  startServer(connection, options);
  connection.listen();
}
