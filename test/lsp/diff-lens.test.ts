/**
 * The diff lenses of `rulekit lsp`, through a real client over stdio, in a temporary git repository with a
 * committed ruleset and a capture: the lens on each edited rule says what `rulekit diff --git HEAD FILE
 * --against CAPTURE` says of the same two texts (the two entry points checked against each other), the
 * removed rules' lens sits on the ruleset, hover and the lens's command show the regions with witnesses,
 * and a file git does not track (or no git at all) gets no lenses and one log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeLensRequest, DidChangeTextDocumentNotification, ExecuteCommandRequest, HoverRequest, type CodeLens } from 'vscode-languageserver-protocol/node';
import { CLI, fileUri, startSession, type LspSession } from '../helpers/lsp-client.js';

const hasGit = spawnSync('git', ['--version']).status === 0;
// CI has git: there the test must run, not skip.
const describeGit = hasGit || process.env['CI'] === 'true' ? describe : describe.skip;

const CAPTURE = join(import.meta.dirname, '..', 'fixtures', 'capture', 'mixed-le-usec.pcap');

const BASE = `{
  "name": "fw",
  "kind": "root",
  "phase": "network_transit",
  "rules": [
    { "ref": "ssh", "action": "block", "expression": "tcp.dstport == 22" },
    { "ref": "web", "action": "block", "expression": "tcp.dstport in {80}" },
    { "ref": "udp", "action": "block", "expression": "ip.proto == \\"udp\\"" }
  ]
}
`;

/** The base with rule "web" widened to 443, rule "udp" removed and a rule "office" added before "web". */
const EDITED = BASE.replace('tcp.dstport in {80}', 'tcp.dstport in {80 443}')
  .replace(',\n    { "ref": "udp", "action": "block", "expression": "ip.proto == \\"udp\\"" }', '')
  .replace('    { "ref": "web"', '    { "ref": "office", "action": "skip", "action_parameters": { "ruleset": "current" }, "expression": "ip.src in {192.0.2.0/24} and tcp.dstport == 80" },\n    { "ref": "web"');

function git(dir: string, ...args: string[]) {
  execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
}

/** A repository with fw.json committed and the capture beside it. */
function repository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-lsp-diff-'));
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'config', 'user.name', 'test');
  writeFileSync(join(dir, 'fw.json'), BASE);
  git(dir, 'add', 'fw.json');
  git(dir, 'commit', '-q', '-m', 'base');
  copyFileSync(CAPTURE, join(dir, 'cap.pcap'));
  return dir;
}

interface CliPair { old: { verdict: string; rule?: { index: number } }; new: { verdict: string; rule?: { index: number } }; count: number }
interface CliReport { regions: { change: 'verdict' | 'rule'; old: { verdict: string; rule?: { index: number } }; new: { verdict: string; rule?: { index: number } }; witness?: unknown }[]; matches: { old: number; new: number }[]; counts?: { pairs: CliPair[]; verdictChanged: number } }

/** `rulekit diff --git HEAD FILE [--against CAPTURE] --format json` of the file as it is on disk. */
function cliDiff(dir: string, against: string | undefined, file = 'fw.json'): CliReport {
  const r = spawnSync(process.execPath, [CLI, 'diff', '--git', 'HEAD', file, ...(against ? ['--against', against] : []), '--format', 'json'], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { reports: CliReport[] }).reports[0]!;
}

/** The CLI's figures for the change a new rule answers for (its new index; -1: the removed rules), as the lens states them. */
function cliFigures(report: CliReport, rule: number) {
  const partner = new Map(report.matches.map((m) => [m.old, m.new]));
  const owner = (p: { old: { rule?: { index: number } }; new: { rule?: { index: number } } }) => {
    if (p.new.rule) return p.new.rule.index;
    const o = p.old.rule?.index;
    return o === undefined ? -1 : partner.get(o) ?? -1;
  };
  const pairs = (report.counts?.pairs ?? []).filter((p) => owner(p) === rule);
  const sum = (f: (p: CliPair) => boolean) => pairs.filter(f).reduce((n, p) => n + p.count, 0);
  return {
    blocks: sum((p) => p.new.verdict === 'block' && p.old.verdict !== 'block'),
    allows: sum((p) => p.new.verdict === 'allow' && p.old.verdict !== 'allow'),
    regions: report.regions.filter((r) => owner(r) === rule),
  };
}

/** Client side of a document, edited with incremental changes. */
async function openAndEdit(lsp: LspSession, path: string, from: string, to: string): Promise<TextDocument> {
  const uri = fileUri(path);
  await lsp.open(uri, 'json', from, 1);
  const doc = TextDocument.create(uri, 'json', 2, to);
  await lsp.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: to }] });
  return doc;
}

const lensesOf = (lsp: LspSession, uri: string) => lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }) as Promise<CodeLens[]>;
/** The lens at the line of a marker. */
const lensAt = (doc: TextDocument, lenses: CodeLens[], marker: string) => lenses.find((l) => l.range.start.line === doc.positionAt(doc.getText().indexOf(marker)).line);

describeGit('rulekit lsp: diff lenses', () => {
  let dir: string;
  let lsp: LspSession;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = repository();
    lsp = await startSession({ cwd: dir, rootPath: dir, args: ['--full-check-delay', '50'], settings: { diff: { capture: 'cap.pcap' } } });
    lsp.connection.onNotification('window/logMessage', (p: { message: string }) => void logs.push(p.message));
  });
  afterAll(async () => {
    await lsp?.close();
  });

  it('advertises code lenses and the command that shows their regions', () => {
    expect(lsp.initialized.capabilities.codeLensProvider).toBeDefined();
    expect(lsp.initialized.capabilities.executeCommandProvider?.commands).toContain('rulekit.diff.showRegions');
  });

  it('each changed rule says what rulekit diff --git HEAD --against says of the same texts', async () => {
    const doc = await openAndEdit(lsp, join(dir, 'fw.json'), BASE, EDITED);
    const lenses = await lensesOf(lsp, doc.uri);
    // The editor's text on disk, for the CLI (the LSP read the base from git, the text from the editor).
    writeFileSync(join(dir, 'fw.json'), EDITED);
    const cli = cliDiff(dir, 'cap.pcap');
    const web = cliFigures(cli, 2);
    const office = cliFigures(cli, 1);
    const removed = cliFigures(cli, -1);
    // The capture has port-443 packets the widened rule now blocks, and UDP packets the removed rule blocked.
    expect(web.blocks).toBeGreaterThan(0);
    expect(removed.allows).toBeGreaterThan(0);
    // Every packet whose verdict changes is on exactly one lens.
    expect([web, office, removed].reduce((n, f) => n + f.blocks + f.allows, 0)).toBe(cli.counts!.verdictChanged);
    expect(lensAt(doc, lenses, '"ref": "web"')?.command?.title).toBe(`blocks ${web.blocks} more · allows ${web.allows} more packets of cap.pcap`);
    expect(lensAt(doc, lenses, '"ref": "office"')?.command?.title).toBe(office.blocks + office.allows ? `blocks ${office.blocks} more · allows ${office.allows} more packets of cap.pcap` : 'no change in traffic of cap.pcap');
    // The removed rule's lens is on the ruleset (its first line).
    expect(lensAt(doc, lenses, '{')?.command?.title).toBe(`removed rule 2 "udp": blocks ${removed.blocks} more · allows ${removed.allows} more packets of cap.pcap`);
    expect(lenses.map((l) => l.command?.command)).toEqual(lenses.map(() => 'rulekit.diff.showRegions'));
    // The unchanged rule "ssh" has no lens.
    expect(lensAt(doc, lenses, '"ref": "ssh"')).toBeUndefined();

    // Hover over the edited rule, and the lens's command: its regions with witnesses.
    const hover = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc.uri }, position: doc.positionAt(doc.getText().indexOf('"ref": "web"')) });
    const markdown = (hover?.contents as { value: string }).value;
    expect(markdown).toContain('tcp.dstport 443');
    expect(markdown).toContain(`witness \`${JSON.stringify(cli.regions.find((r) => r.new.rule?.index === 2)!.witness)}\``);
    const lens = lensAt(doc, lenses, '"ref": "web"')!;
    const shown = await lsp.connection.sendRequest(ExecuteCommandRequest.type, { command: lens.command!.command, arguments: lens.command!.arguments });
    expect(shown).toBe(markdown);
  });

  it('without a capture, the regions each change makes, as the CLI finds them', async () => {
    const uri = fileUri(join(dir, 'fw.json'));
    // Settings apply once the server has asked for them: it checks the open documents again then.
    const applied = lsp.diagnostics(uri);
    await lsp.changeSettings({});
    await applied;
    const doc = TextDocument.create(uri, 'json', 2, EDITED);
    const lenses = await lensesOf(lsp, uri);
    const cli = cliDiff(dir, undefined);
    const web = cliFigures(cli, 2).regions;
    expect(web.length).toBeGreaterThan(0);
    const changes = [...new Set(web.map((r) => (r.change === 'rule' ? `${r.new.verdict} by another rule` : `${r.old.verdict} → ${r.new.verdict}`)))].join(', ');
    expect(lensAt(doc, lenses, '"ref": "web"')?.command?.title).toBe(`${web.length} region${web.length === 1 ? '' : 's'} change${web.length === 1 ? 's' : ''}: ${changes}`);
    const removed = cliFigures(cli, -1).regions;
    expect(lenses.some((l) => l.command?.title.startsWith(`removed rule 2 "udp": ${removed.length} region`))).toBe(true);
    const back = lsp.diagnostics(uri);
    await lsp.changeSettings({ diff: { capture: 'cap.pcap' } });
    await back;
  });

  it('Terraform, an HTTP phase, Logpush lines as the traffic: requests counted as the CLI counts them', async () => {
    const tf = (bots: string) => `resource "cloudflare_ruleset" "waf" {
  zone_id = var.zone
  name    = "waf"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [
    { ref = "admin", action = "block", expression = "http.request.uri.path eq \\"/admin\\"" },
    { ref = "posts", action = "block", expression = "${bots}" },
  ]
}
`;
    const before = tf('ip.src.country eq \\"XX\\" and http.request.method eq \\"POST\\"');
    const after = tf('ip.src.country eq \\"XX\\"');
    writeFileSync(join(dir, 'waf.tf'), before);
    git(dir, 'add', 'waf.tf');
    git(dir, 'commit', '-q', '-m', 'waf');
    const line = (uri: string, country: string, method: string) => JSON.stringify({ ClientRequestMethod: method, ClientRequestScheme: 'https', ClientRequestHost: 'example.com', ClientRequestURI: uri, ClientIP: '192.0.2.9', ClientCountry: country, EdgeStartTimestamp: '2026-11-28T10:00:00Z', RayID: '8c1f' });
    writeFileSync(join(dir, 'http.ndjson'), [line('/admin', 'de', 'GET'), line('/login', 'xx', 'POST'), line('/login', 'xx', 'GET'), line('/cart', 'xx', 'GET'), line('/cart', 'us', 'POST')].join('\n') + '\n');
    const applied = lsp.diagnostics(fileUri(join(dir, 'fw.json')));
    await lsp.changeSettings({ diff: { capture: 'http.ndjson' } });
    await applied;

    const uri = fileUri(join(dir, 'waf.tf'));
    await lsp.open(uri, 'terraform', before, 1);
    await lsp.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: after }] });
    const doc = TextDocument.create(uri, 'terraform', 2, after);
    const lenses = await lensesOf(lsp, uri);
    writeFileSync(join(dir, 'waf.tf'), after);
    const posts = cliFigures(cliDiff(dir, 'http.ndjson', 'waf.tf'), 1);
    expect(posts.blocks).toBe(2);
    expect(lenses.map((l) => l.command?.title)).toEqual([`blocks ${posts.blocks} more · allows ${posts.allows} more requests of http.ndjson`]);
    expect(lensAt(doc, lenses, '{ ref = "posts"')).toBeDefined();

    const back = lsp.diagnostics(fileUri(join(dir, 'fw.json')));
    await lsp.changeSettings({ diff: { capture: 'cap.pcap' } });
    await back;
  });

  it('a file git does not track: no lenses, one log line', async () => {
    writeFileSync(join(dir, 'new.json'), BASE);
    const uri = fileUri(join(dir, 'new.json'));
    await lsp.open(uri, 'json', BASE, 1);
    expect(await lensesOf(lsp, uri)).toEqual([]);
    expect(await lensesOf(lsp, uri)).toEqual([]);
    const lines = logs.filter((l) => l.includes('new.json'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^rulekit: no diff lenses for .*new\.json: /);
  });
});

describe('rulekit lsp: diff lenses without git', () => {
  it('no git on the PATH (or no repository): no lenses, one log line, the other features go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-lsp-nogit-'));
    writeFileSync(join(dir, 'fw.json'), BASE);
    const path = process.env['PATH'];
    process.env['PATH'] = join(dir, 'no-bin');
    let lsp: LspSession;
    try {
      lsp = await startSession({ cwd: dir, rootPath: dir, args: ['--full-check-delay', '50'] });
    } finally {
      process.env['PATH'] = path;
    }
    const logs: string[] = [];
    lsp.connection.onNotification('window/logMessage', (p: { message: string }) => void logs.push(p.message));
    const uri = fileUri(join(dir, 'fw.json'));
    const diagnostics = lsp.diagnostics(uri);
    await lsp.open(uri, 'json', BASE, 1);
    expect((await diagnostics).diagnostics).toEqual([]);
    expect(await lensesOf(lsp, uri)).toEqual([]);
    expect(await lensesOf(lsp, uri)).toEqual([]);
    expect(logs).toEqual([`rulekit: no diff lenses for ${join(dir, 'fw.json')}: git is not installed (or not on the PATH)`]);
    expect(await lsp.close()).toBe(0);
  });
});
