/**
 * `rulekit lsp` through a real LSP client over stdio (the built CLI spawned, a vscode-languageserver-protocol
 * connection on its pipes): initialize, open, incremental change, diagnostics, completion, hover, signature
 * help, a quick fix applied until the diagnostics clear, formatting, symbols, settings, shutdown and exit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CodeActionRequest, CompletionRequest, DidChangeTextDocumentNotification, DocumentFormattingRequest, DocumentSymbolRequest,
  HoverRequest, SignatureHelpRequest, type CodeAction, type CompletionList, type Diagnostic, type DocumentSymbol, type TextEdit,
} from 'vscode-languageserver-protocol/node';
import { fileUri, startSession, type LspSession } from '../helpers/lsp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-lsp-'));
let lsp: LspSession;

beforeAll(async () => {
  lsp = await startSession({ cwd: dir, rootPath: dir, settings: { lists: { office: ['192.0.2.0/24'] } } });
});
afterAll(async () => {
  if (lsp.child.exitCode === null) lsp.child.kill();
});

const codes = (ds: Diagnostic[]) => ds.map((d) => d.code);

/** A document the test edits as a client would, sending each edit as an incremental change. */
class Doc {
  doc: TextDocument;
  constructor(readonly uri: string, languageId: string, text: string) {
    this.doc = TextDocument.create(uri, languageId, 1, text);
  }
  async open() {
    const d = lsp.diagnostics(this.uri, (p) => p.version === this.doc.version);
    await lsp.open(this.uri, this.doc.languageId, this.doc.getText(), this.doc.version);
    return (await d).diagnostics;
  }
  async edit(edits: TextEdit[]) {
    const version = this.doc.version + 1;
    // Later edits first, so each range still means what it meant in the old text.
    const ordered = [...edits].sort((a, b) => this.doc.offsetAt(b.range.start) - this.doc.offsetAt(a.range.start));
    const contentChanges = ordered.map((e) => ({ range: e.range, text: e.newText }));
    this.doc = TextDocument.update(this.doc, contentChanges, version);
    const d = lsp.diagnostics(this.uri, (p) => p.version === version);
    await lsp.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: this.uri, version }, contentChanges });
    return (await d).diagnostics;
  }
  pos(marker: string, delta = 0) {
    const i = this.doc.getText().indexOf(marker);
    if (i < 0) throw new Error(`${marker} not in ${this.doc.getText()}`);
    return this.doc.positionAt(i + delta);
  }
  text() {
    return this.doc.getText();
  }
}

describe('rulekit lsp over stdio', () => {
  it('initialize advertises the features it has, with incremental sync', () => {
    const c = lsp.initialized.capabilities;
    expect(lsp.initialized.serverInfo?.name).toBe('rulekit');
    expect(c.textDocumentSync).toMatchObject({ openClose: true, change: 2 });
    expect(c.completionProvider?.triggerCharacters).toContain('$');
    expect(c.hoverProvider).toBe(true);
    expect(c.signatureHelpProvider?.triggerCharacters).toContain('(');
    expect(c.documentFormattingProvider).toBe(true);
    expect(c.documentSymbolProvider).toBe(true);
    expect(c.codeActionProvider).toMatchObject({ codeActionKinds: ['quickfix', 'source.fixAll.rulekit'] });
  });

  it('a .rules file: diagnostics on open and after an incremental change, at their lines', async () => {
    const doc = new Doc(fileUri(join(dir, 'a.rules')), 'rulekit', '# web\ntcp.dstport in {80, 443}\nip.src == 10.0.0.0/8\n');
    const first = await doc.open();
    expect(codes(first)).toEqual(['comma-in-set', 'cidr-outside-set']);
    expect(first[0]!.range.start).toEqual({ line: 1, character: 18 });
    expect(first[0]!.source).toBe('rulekit');
    expect(first[1]!.range.start.line).toBe(2);
    const after = await doc.edit([{ range: { start: doc.pos('tcp.dstport'), end: doc.pos('tcp.dstport', 11) }, newText: 'tcp.dst_port' }]);
    expect(codes(after)).toEqual(['unknown-field', 'comma-in-set', 'cidr-outside-set']);
    expect(after[0]!.message).toContain('did you mean tcp.dstport?');
  });

  it('a rulekit-disable-next-line comment hides the codes it names on the next line', async () => {
    const doc = new Doc(fileUri(join(dir, 'suppressed.rules')), 'rulekit', '# rulekit-disable-next-line comma-in-set\ntcp.dstport in {80, 443}\nip.src == 10.0.0.0/8\n');
    expect(codes(await doc.open())).toEqual(['cidr-outside-set']);
  });

  it('a quick fix, applied, clears its diagnostic; the fix-all action applies the safe ones', async () => {
    const doc = new Doc(fileUri(join(dir, 'fix.rules')), 'rulekit', 'tcp.dstport in {80, 443} AND ip.src == 10.0.0.0/8\n');
    const ds = await doc.open();
    expect(codes(ds)).toEqual(['comma-in-set', 'uppercase-keyword', 'cidr-outside-set']);
    const comma = ds[0]!;
    const actions = (await lsp.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: doc.uri }, range: comma.range, context: { diagnostics: [comma] } })) as CodeAction[];
    const quick = actions.find((a) => a.kind === 'quickfix')!;
    expect(quick.title).toBe('remove the comma');
    expect(quick.isPreferred).toBe(true);
    expect(quick.diagnostics).toEqual([comma]);
    const left = await doc.edit(quick.edit!.changes![doc.uri]!);
    expect(doc.text()).toBe('tcp.dstport in {80 443} AND ip.src == 10.0.0.0/8\n');
    expect(codes(left)).toEqual(['uppercase-keyword', 'cidr-outside-set']);
    const all = (await lsp.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: doc.uri }, range: left[0]!.range, context: { diagnostics: [], only: ['source.fixAll'] } })) as CodeAction[];
    expect(all.map((a) => a.kind)).toEqual(['source.fixAll.rulekit']);
    const clean = await doc.edit(all[0]!.edit!.changes![doc.uri]!);
    expect(doc.text()).toBe('tcp.dstport in {80 443} and ip.src in {10.0.0.0/8}\n');
    expect(clean).toEqual([]);
  });

  it('completion, hover and signature help in a .rules file', async () => {
    const doc = new Doc(fileUri(join(dir, 'c.rules')), 'rulekit', 'tcp.d\nip.src in $\nbit_slice(tcp, 1\n');
    await doc.open();
    const list = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('tcp.d', 5) })) as CompletionList;
    const port = list.items.find((i) => i.label === 'tcp.dstport')!;
    expect(port.kind).toBe(5); // Field
    expect(port.detail).toContain('Int');
    expect(port.textEdit).toEqual({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }, newText: 'tcp.dstport' });
    const lists = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('$', 1) })) as CompletionList;
    // The account list comes from the client's settings (workspace/configuration).
    expect(lists.items.map((i) => i.label)).toEqual(['$svc.anonymizer', '$svc.botnetcc', '$svc.malware', '$office']);
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('ip.src', 2) });
    expect(h!.contents).toMatchObject({ kind: 'markdown', value: expect.stringContaining('Source IP address') });
    expect(h!.range).toEqual({ start: { line: 1, character: 0 }, end: { line: 1, character: 6 } });
    const sig = await lsp.connection.sendRequest(SignatureHelpRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('tcp, 1', 6) });
    expect(sig!.signatures[0]!.label).toMatch(/^bit_slice\(field: raw header/);
    expect(sig!.activeParameter).toBe(1);
  });

  it('formatting writes each expression in canonical form and leaves broken ones alone', async () => {
    const doc = new Doc(fileUri(join(dir, 'f.rules')), 'rulekit', 'tcp.dstport eq 80 &&  ip.src in {10.0.0.0/8}\n# note\ntcp.dstport ==\nnot(sip)\n');
    await doc.open();
    const edits = await lsp.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: doc.uri }, options: { tabSize: 2, insertSpaces: true } });
    await doc.edit(edits!);
    expect(doc.text()).toBe('tcp.dstport == 80 and ip.src in {10.0.0.0/8}\n# note\ntcp.dstport ==\nnot (sip)\n');
  });

  it('a ruleset JSON file: diagnostics inside the strings, completion re-encoded for JSON, symbols per rule, analysis after a pause', async () => {
    const body = {
      name: 'fw', kind: 'root', phase: 'network_transit',
      rules: [
        { action: 'block', description: 'telnet', expression: 'tcp.dstport == 23' },
        { action: 'block', description: 'again', expression: 'tcp.dstport in {23}' },
        { action: 'block', expression: 'ip.src.country == "us"' },
      ],
    };
    const doc = new Doc(fileUri(join(dir, 'ruleset.json')), 'json', JSON.stringify(body, null, 2));
    const quick = await doc.open();
    expect(codes(quick)).toEqual(['lowercase-country-code']);
    // The string literal "us", its escaped quotes included.
    expect(quick[0]!.range).toEqual({ start: doc.pos('\\"us\\"'), end: doc.pos('\\"us\\"', 6) });
    // The full check follows once typing pauses: rule 1 can never decide (rule 0 blocks the same packets).
    const full = await lsp.diagnostics(doc.uri, (p) => p.diagnostics.length > 1);
    expect(full.version).toBe(1);
    expect(codes(full.diagnostics)).toContain('lowercase-country-code');
    expect(full.diagnostics.some((d) => /never decide|redundant|shadow/.test(d.message as string))).toBe(true);
    const list = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('\\"us\\"', 3) })) as CompletionList;
    const us = list.items.find((i) => i.label === 'US')!;
    expect(us.textEdit).toMatchObject({ newText: 'US' });
    const after = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('{23}', 4) })) as CompletionList;
    expect(after.items.map((i) => i.label)).toEqual(['and', 'xor', 'or']);
    const country = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('== \\"us', 3) })) as CompletionList;
    expect(country.items.find((i) => i.label === '"US"')!.textEdit).toMatchObject({ newText: '\\"US\\"' });
    const symbols = (await lsp.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: doc.uri } })) as DocumentSymbol[];
    expect(symbols.map((s) => [s.name, s.detail])).toEqual([
      ['telnet', 'block: tcp.dstport == 23'],
      ['again', 'block: tcp.dstport in {23}'],
      ['rule 2', 'block: ip.src.country == "us"'],
    ]);
    expect(symbols[0]!.range.start.line).toBeLessThan(symbols[0]!.selectionRange.start.line + 1);
  });

  it('a Logpush job JSON file: the filter is completed and hovered with the job\'s dataset', async () => {
    const job = { dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1', filter: '{"where":{"key":"EdgeResponseStatus","operator":"","value":500}}' };
    const doc = new Doc(fileUri(join(dir, 'job.json')), 'json', JSON.stringify(job, null, 2));
    await doc.open();
    const ops = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('\\"operator\\":\\"', 15) })) as CompletionList;
    expect(ops.items.map((i) => i.label)).toEqual(['eq', '!eq', 'lt', 'leq', 'gt', 'geq', 'in', '!in']);
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('EdgeResponse', 4) });
    expect((h!.contents as { value: string }).value).toContain('**EdgeResponseStatus** `int`');
  });

  it('a YAML ruleset: diagnostics and completion in plain and double-quoted scalars', async () => {
    const yaml = 'name: fw\nkind: root\nphase: network_transit\nrules:\n  - action: block\n    expression: tcp.dstport in {22, 23}\n  - action: block\n    expression: "ip.src.country == \\"us\\" and tcp.d"\n';
    const doc = new Doc(fileUri(join(dir, 'rules.yaml')), 'yaml', yaml);
    const ds = await doc.open();
    expect(codes(ds)).toEqual(['comma-in-set', 'lowercase-country-code', 'unknown-field']);
    expect(ds[0]!.range.start).toEqual(doc.pos(', 23'));
    expect(ds[1]!.range.start).toEqual(doc.pos('\\"us'));
    const list = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('tcp.d"', 5) })) as CompletionList;
    expect(list.items.find((i) => i.label === 'tcp.dstport')!.textEdit).toEqual({ range: { start: doc.pos('tcp.d"'), end: doc.pos('tcp.d"', 5) }, newText: 'tcp.dstport' });
    const fix = (await lsp.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: doc.uri }, range: ds[1]!.range, context: { diagnostics: [ds[1]!] } })) as CodeAction[];
    await doc.edit(fix[0]!.edit!.changes![doc.uri]!);
    expect(doc.text()).toContain('expression: "ip.src.country == \\"US\\" and tcp.d"');
  });

  it('the client\'s settings apply from the first diagnostics, and a change of them is read back', async () => {
    const other = await startSession({ cwd: dir, rootPath: dir, settings: { severity: { 'comma-in-set': 'hint' } } });
    try {
      const uri = fileUri(join(dir, 'settings.rules'));
      const first = other.diagnostics(uri);
      await other.open(uri, 'rulekit', 'tcp.dstport in {80, 443}\nip.src in $office\n');
      expect((await first).diagnostics.map((d) => [d.code, d.severity])).toEqual([['comma-in-set', 4], ['list-not-provided', 3]]);
      const next = other.diagnostics(uri);
      await other.changeSettings({ lists: { partners: ['198.51.100.0/24'] } });
      const ds = (await next).diagnostics;
      expect(ds.map((d) => [d.code, d.severity])).toEqual([['comma-in-set', 1], ['unknown-list', 1]]);
      expect(ds[1]!.message).toContain('$office');
    } finally {
      await other.close();
    }
  });

  it('a Terraform file: expressions of cloudflare_ruleset are checked in place', async () => {
    const tf = 'resource "cloudflare_ruleset" "fw" {\n  account_id = "x"\n  name  = "fw"\n  kind  = "root"\n  phase = "magic_transit"\n  rules = [{\n    action     = "block"\n    expression = "tcp.dstport in {22, 23}"\n  }]\n}\n';
    const doc = new Doc(fileUri(join(dir, 'main.tf')), 'terraform', tf);
    const ds = await doc.open();
    expect(codes(ds)).toEqual(['comma-in-set']);
    expect(ds[0]!.range.start).toEqual(doc.pos(', 23'));
  });

  it('a Terraform file with HTTP and network rulesets: each checked, completed and hovered with its phase\'s fields', async () => {
    const tf =
      'resource "cloudflare_ruleset" "waf" {\n  zone_id = "z"\n  name  = "waf"\n  kind  = "zone"\n  phase = "http_request_firewall_custom"\n  rules = [{\n    action     = "block"\n    expression = "http.request.uri.path eq \\"/admin\\" and tcp.dstport == 80"\n  }, {\n    action     = "block"\n    expression = "http.user_a"\n  }]\n}\n' +
      'resource "cloudflare_ruleset" "magic" {\n  account_id = "x"\n  name  = "m"\n  kind  = "root"\n  phase = "magic_transit"\n  rules = [{\n    action     = "block"\n    expression = "http.host eq \\"a\\""\n  }]\n}\n';
    const doc = new Doc(fileUri(join(dir, 'mixed.tf')), 'terraform', tf);
    const ds = await doc.open();
    expect(codes(ds)).toEqual(['rule-field-phase', 'unknown-field', 'rule-field-phase']);
    expect(ds[0]!.message).toContain('the http_request_firewall_custom phase reads HTTP request fields');
    expect(ds[2]!.message).toContain('the magic_transit phase reads packet fields');
    const list = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('http.user_a', 11) })) as CompletionList;
    expect(list.items.map((i) => i.label)).toContain('http.user_agent');
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('http.request.uri.path', 3) });
    expect(h!.contents).toMatchObject({ kind: 'markdown', value: expect.stringContaining('The URI path of the request') });
  });

  it('JSON files that are not bodies get no diagnostics, broken or not; a broken body gets its syntax error', async () => {
    expect(await new Doc(fileUri(join(dir, 'package.json')), 'json', '{"name": "x", "version": }').open()).toEqual([]);
    expect(await new Doc(fileUri(join(dir, 'tsconfig.json')), 'json', '{"compilerOptions": {"strict": true}}').open()).toEqual([]);
    expect(codes(await new Doc(fileUri(join(dir, 'broken.json')), 'json', '{"rules": [{"expression": "tcp.d').open())).toEqual(['lint-parse-error']);
  });

  it('Terraform: completion and hover inside the expression string', async () => {
    const tf = 'resource "cloudflare_ruleset" "fw" {\n  phase = "magic_transit"\n  rules = [{\n    action     = "block"\n    expression = "ip.src.country in {\\"FR\\" } and tcp.dst"\n  }]\n}\n';
    const doc = new Doc(fileUri(join(dir, 'complete.tf')), 'terraform', tf);
    await doc.open();
    const list = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('FR\\" ', 4) })) as CompletionList;
    expect(list.items.find((i) => i.label === '"DE"')!.textEdit).toMatchObject({ newText: '\\"DE\\"' });
    const fields = (await lsp.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('tcp.dst"', 7) })) as CompletionList;
    expect(fields.items.map((i) => i.label)).toContain('tcp.dstport');
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc.uri }, position: doc.pos('country', 2) });
    expect((h!.contents as { value: string }).value).toContain('**ip.src.country**');
    expect(h!.range).toEqual({ start: doc.pos('ip.src.country'), end: doc.pos('ip.src.country', 14) });
  });

  it('rulekit.config.json next to the file sets severities', async () => {
    const sub = join(dir, 'configured');
    (await import('node:fs')).mkdirSync(sub);
    writeFileSync(join(sub, 'rulekit.config.json'), JSON.stringify({ severity: { 'comma-in-set': 'off', 'cidr-outside-set': 'warn' } }));
    const doc = new Doc(fileUri(join(sub, 'x.rules')), 'rulekit', 'tcp.dstport in {80, 443}\nip.src == 10.0.0.0/8\n');
    const ds = await doc.open();
    expect(ds.map((d) => [d.code, d.severity])).toEqual([['cidr-outside-set', 2]]);
  });

  it('shutdown and exit end the process with code 0', async () => {
    expect(await lsp.close()).toBe(0);
    expect(lsp.stderr()).toBe('');
  });
});
