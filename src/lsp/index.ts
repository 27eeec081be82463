/**
 * The language server (`rulekit lsp`, Node only): diagnostics as you type, completion, hover, signature
 * help, quick fixes, formatting and document symbols for `.rules` files, ruleset and Logpush job bodies
 * in JSON and YAML, and Terraform `cloudflare_ruleset` / `cloudflare_logpush_job` resources — lint's
 * extractors and checks on the server side, rulekit/language for completion and hover.
 * @module
 */
export { startServer, SERVER_VERSION, type ServerOptions } from './server.js';
export { runStdio } from './main.js';
export type { ClientSettings } from './settings.js';
