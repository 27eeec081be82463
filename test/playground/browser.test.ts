/**
 * The playground in a real browser: `rulekit playground --port 0` serves the built page, playwright-core
 * drives Debian's Chromium through it as a person would — type a bad expression, read the squiggle's
 * message, accept its quick fix, see the sample packet match; complete and hover; open the link the page
 * wrote and find the same page; run the Logpush filter; drop a capture and compare its summary with
 * `rulekit/node`'s simulation of the same file. Screenshots go to a temp directory (printed).
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeNeedsTool, needsTool, toolAvailable } from '../helpers/tools.js';
import { CLI, ensureBuilt, ROOT } from '../server/process.js';
import { runSimulation } from '../../src/simulation/index.js';
import { decodeState, defaultState } from '../../src/playground/index.js';
import { countDiff, decisionText } from '../../src/diff/index.js';
import { readTrafficRecords } from '../../src/http/index.js';
import { HTTP_DIFF_NEW, HTTP_DIFF_OLD, LOGPUSH_LINES } from './http-diff-fixture.js';

const CAPTURE = join(ROOT, 'test', 'fixtures', 'capture', 'two-interfaces.pcapng');
const SHOTS = mkdtempSync(join(tmpdir(), 'rulekit-playground-shots-'));

/**
 * `expect.poll` with room for a loaded machine (CI runs the suites side by side on two cores): the page
 * checks a quarter of a second after the last keystroke, and a busy Chromium can take seconds more.
 */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 50 });

/** Debian's chromium (or chromium-browser) as playwright-core's executable. */
function chromiumPath(): string {
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' });
  return which.stdout.trim();
}

let server: ChildProcess | undefined;
let url = '';
let browser: Browser | undefined;

async function startServer(): Promise<string> {
  await ensureBuilt();
  server = spawn(process.execPath, [CLI, 'playground', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed in 20 s: ${out}`)), 20_000);
    server!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    server!.once('exit', (code) => reject(new Error(`rulekit playground exited ${code}: ${out}`)));
  });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A screenshot that must have been written and hold a real page (a blank one compresses to a few hundred bytes). */
async function shotChecked(page: Page, name: string): Promise<void> {
  await shot(page, name);
  const file = join(SHOTS, `${name}.png`);
  expect(existsSync(file)).toBe(true);
  expect(statSync(file).size, `${file} is ${statSync(file).size} bytes`).toBeGreaterThan(20_000);
}

/** The text of the expression editor. */
const editorText = (page: Page, id: string) => page.locator(`#${id} .cm-content`).innerText();

/** Open the page (or a link) and wait until it has loaded its state. */
async function open(link: string, width = 1280): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(link);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** Replace the expression editor's text by typing it, as a person would. */
async function typeExpression(page: Page, text: string): Promise<void> {
  await page.click('#expression-editor .cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text, { delay: 5 });
  await page.keyboard.press('Escape');
}

/** Replace an editor's text by a paste (select all, then a paste event carrying the text, as Ctrl+V makes). */
async function paste(page: Page, id: string, text: string): Promise<void> {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('Control+A');
  await page.evaluate(
    ({ id, text }) => {
      const dt = new DataTransfer();
      dt.setData('text/plain', text);
      document.querySelector(`#${id} .cm-content`)!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { id, text },
  );
}

describeNeedsTool('chromium')('the playground in Chromium', () => {
  const it = needsTool('chromium');

  beforeAll(async () => {
    if (!toolAvailable('chromium')) return;
    url = await startServer();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath() });
    console.log(`playground screenshots in ${SHOTS}`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
  });

  it('first load: the samples, the sample packets judged, the views beside the expression', async () => {
    const page = await open(url);
    expect(await editorText(page, 'expression-editor')).toBe('tcp.dstport in {80 443} and not ip.src in $svc.anonymizer');
    await poll(() => page.textContent('[data-testid=verdict-0]')).toContain('match');
    expect(await page.textContent('[data-testid=verdict-0] strong')).toBe('match');
    expect(await page.textContent('[data-testid=verdict-1] strong')).toBe('no match');
    expect(await page.textContent('#rules-problems')).toBe('no problems');
    expect(await page.textContent('[data-testid=canonical]')).toBe('tcp.dstport in {80 443} and not ip.src in $svc.anonymizer');
    expect(await page.textContent('[data-testid=wireshark]')).toContain('tcp.dstport in {80, 443}');
    expect(await page.textContent('[data-testid=ast]')).toMatch(/^logical op="and"  \[0, 57\)\n  operands\[0\]: in  \[0, 23\)\n    lhs: field name="tcp.dstport"  \[0, 11\)/);
    // Highlighting comes from the lexer's token styles: the field, the list and the numbers are styled.
    expect(await page.locator('#expression-editor .cm-line span').count()).toBeGreaterThan(5);
    await shot(page, '1-first-load');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  for (const width of [1280, 760]) {
    it(`the layout at ${width} px: no sideways scroll, the verdicts on two lines, the phase off in ruleset mode; screenshots`, async () => {
      const page = await open(url, width);
      // The page itself never scrolls sideways (a wide table may, inside its own box), on any tab.
      const overflow = () => page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth }));
      const fits = async () => {
        const o = await overflow();
        expect(o.scrollWidth, `the page is ${o.scrollWidth} px wide in a ${o.innerWidth} px window`).toBeLessThanOrEqual(o.innerWidth);
      };
      await fits();
      expect(await page.isDisabled('#phase')).toBe(false);
      await page.check('#mode-ruleset');
      await poll(() => page.textContent('[data-testid=verdict-1]')).toBe('block by #3 anonymizers (no web from anonymizers)');
      // A ruleset is checked for its own phase: the selector is off, and the note names the body's phase.
      expect(await page.isDisabled('#phase')).toBe(true);
      expect(await page.textContent('#phase-note')).toContain('network_transit');
      // The longest verdict takes two lines at most: its content height against its line height.
      const lines = await page.locator('[data-testid=verdict-1]').evaluate((td) => {
        const style = getComputedStyle(td);
        const content = td.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
        const lineHeight = style.lineHeight === 'normal' ? 1.2 * parseFloat(style.fontSize) : parseFloat(style.lineHeight);
        return content / lineHeight;
      });
      expect(lines).toBeGreaterThan(1.5);
      expect(lines).toBeLessThan(2.5);
      await fits();
      await shotChecked(page, `layout-${width}-ruleset`);
      await page.click('#tab-logpush');
      await poll(() => page.textContent('[data-testid=line-1]')).toBe('kept');
      // The "why" tree of a line: none of its lines wraps (each is one line box of the <pre>).
      const why = await page.locator('table.lines tbody tr').first().locator('pre').evaluate((pre) => ({ height: pre.clientHeight, lines: pre.textContent!.split('\n').length, lineHeight: parseFloat(getComputedStyle(pre).lineHeight) }));
      expect(why.height).toBeLessThanOrEqual(why.lines * why.lineHeight + 1);
      await fits();
      await shotChecked(page, `layout-${width}-logpush`);
      await page.close();
    });
  }

  it('the diff tab: the regions of the sample change with witnesses, counted over the sample packets and drawn', async () => {
    const page = await open(url, 760);
    await page.click('#tab-diff');
    await poll(() => page.textContent('[data-testid=diff-totals]')).toBe('3 region(s) of packets change fate: 3 exact, 0 unknown');
    const rows = await page.locator('table.regions tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual([
      ['1', 'verdict', 'udp.dstport 5060', 'block by rule 4 "no-sip"', 'allow', 'udp.dstport 5060', '1'],
      ['2', 'verdict', 'tcp.dstport 3389', 'allow', 'block by rule 1 "no-telnet-smb"', 'tcp.dstport 3389', '0'],
      ['3', 'rule', 'ip.src 203.0.113.0/26, tcp.dstport 443', 'allow', 'allow by rule 0 "office-ssh"', 'ip.src 203.0.113.0, tcp.dstport 443', '0'],
    ]);
    expect(await page.textContent('[data-testid=diff-counts]')).toBe('over the 4 sample packet(s) of the rules tab: 1 of 4 packet(s) change fate (1 verdict, 0 deciding rule only)');
    expect(await page.locator('[data-testid=diff-drawings] svg.bars rect title').allTextContents()).toEqual(['block by rule 4 "no-sip" → allow: 1 packet(s)']);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= innerWidth)).toBe(true);
    await shotChecked(page, 'layout-760-diff');
    // An edit on a side is diffed again: SIP blocked again on the new side, one region fewer.
    await paste(page, 'diff-new-editor', defaultState().diffNew.replace('udp.dstport == 5061', 'udp.dstport in {5060 5061}'));
    await poll(() => page.textContent('[data-testid=diff-totals]')).toBe('2 region(s) of packets change fate: 2 exact, 0 unknown');
    await poll(() => page.textContent('[data-testid=diff-counts]')).toContain('0 of 4 packet(s) change fate');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('the diff tab, an HTTP-phase pair: counted over the sample requests, then over dropped Logpush lines, as the library counts them', async () => {
    const page = await open(url);
    await page.click('#tab-diff');
    await paste(page, 'diff-old-editor', HTTP_DIFF_OLD);
    await paste(page, 'diff-new-editor', HTTP_DIFF_NEW);
    await poll(() => page.textContent('[data-testid=diff-totals]')).toMatch(/region\(s\) of requests change fate/);
    // The library's counter over the same requests (the sample requests, read as the CLI reads NDJSON).
    const lib = (text: string) => countDiff(JSON.parse(HTTP_DIFF_OLD), JSON.parse(HTTP_DIFF_NEW), readTrafficRecords(text).records.map((r) => r.record));
    const samples = lib(defaultState().requests);
    await poll(() => page.textContent('[data-testid=diff-counts]')).toBe(`over the ${samples.packets} sample request(s) of the rules tab: ${samples.changed} of ${samples.packets} request(s) change fate (${samples.verdictChanged} verdict, ${samples.changed - samples.verdictChanged} deciding rule only)`);
    const pairs = () => page.locator('[data-testid=diff-pairs] tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(await pairs()).toEqual(samples.pairs.map((p) => [`${decisionText(p.old)} → ${decisionText(p.new)}`, String(p.count), `line ${p.examples[0]!.index + 1} ${JSON.stringify(p.examples[0]!.fields)}`]));
    expect((await pairs()).map((r) => r[2])).toEqual(['line 1 {"http.request.method":"GET","http.request.uri.path":"/admin/users"}', 'line 2 {"http.request.method":"POST","http.request.uri.path":"/login"}']);
    expect(await page.locator('[data-testid=diff-drawings] svg.bars rect title').allTextContents()).toEqual(samples.pairs.map((p) => `${decisionText(p.old)} → ${decisionText(p.new)}: ${p.count} request(s)`));
    await shot(page, '10-diff-http-samples');
    // Logpush http_requests lines dropped on the tab's zone.
    await page.evaluate(
      ({ text }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'http_requests.ndjson', { type: 'application/x-ndjson' }));
        document.querySelector('#diff-dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { text: LOGPUSH_LINES },
    );
    const logs = lib(LOGPUSH_LINES);
    await poll(() => page.textContent('[data-testid=diff-counts]')).toBe(`over http_requests.ndjson (Logpush http_requests lines): ${logs.changed} of ${logs.packets} request(s) change fate (${logs.verdictChanged} verdict, ${logs.changed - logs.verdictChanged} deciding rule only)`);
    expect(await pairs()).toEqual(logs.pairs.map((p) => [`${decisionText(p.old)} → ${decisionText(p.new)}`, String(p.count), `line ${p.examples[0]!.index + 1} ${JSON.stringify(p.examples[0]!.fields)}`]));
    expect(logs.changed).toBe(2);
    await shot(page, '10b-diff-http-logpush');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('the favicon loads; the lists are edited in a multi-line textarea', async () => {
    const page = await open(url);
    const href = await page.evaluate(() => (document.querySelector('link[rel~=icon]') as HTMLLinkElement | null)?.href);
    expect(href).toBeTruthy();
    const icon = await page.request.get(href!);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect((await icon.text()).startsWith('<svg')).toBe(true);
    expect(await page.evaluate(() => document.getElementById('lists')!.tagName)).toBe('TEXTAREA');
    // A newline typed into the lists stays there, and the lists still read as JSON.
    await page.click('#lists');
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    expect((await page.inputValue('#lists')).split('\n').length).toBeGreaterThan(2);
    expect(await page.textContent('#lists-error')).toBe('');
    await page.close();
  });

  it('a bad expression: squiggle and message; the quick fix makes the sample packet match', async () => {
    const page = await open(url);
    await typeExpression(page, 'tcp.dstport in {80, 443}');
    const squiggle = page.locator('#expression-editor .cm-lintRange-error');
    await squiggle.first().waitFor();
    await poll(() => page.textContent('#rules-problems')).toContain('set items are separated by spaces, not commas');
    expect(await page.textContent('[data-testid=verdict-0] strong')).toBe('error');
    await squiggle.first().hover();
    const tooltip = page.locator('.cm-tooltip-lint');
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toContain('set items are separated by spaces, not commas');
    await shot(page, '2-squiggle-and-message');
    await tooltip.locator('.cm-diagnosticAction').first().click();
    await poll(() => editorText(page, 'expression-editor')).toBe('tcp.dstport in {80 443}');
    await poll(() => page.textContent('[data-testid=verdict-0] strong')).toBe('match');
    await poll(() => page.locator('#expression-editor .cm-lintRange-error').count()).toBe(0);
    expect(await page.textContent('[data-testid=verdict-3] strong')).toBe('no match');
    await shot(page, '3-after-quick-fix');
    await page.close();
  });

  it('completion and hover come from rulekit/language', async () => {
    const page = await open(url);
    await typeExpression(page, 'tcp.dstport == 443 and ip.s');
    await page.keyboard.press('Control+Space');
    const list = page.locator('.cm-tooltip-autocomplete');
    await list.waitFor();
    expect(await list.textContent()).toContain('ip.src');
    await shot(page, '4-completion');
    await page.keyboard.press('Escape');
    await page.locator('#expression-editor .cm-line').getByText('tcp.dstport').hover();
    const hover = page.locator('.cm-rulekit-hover');
    await hover.waitFor();
    expect(await hover.textContent()).toContain('TCP destination port');
    await shot(page, '5-hover');
    // Signature help inside a function call: the parameter being written is the bold one.
    await typeExpression(page, 'bit_slice(tcp, 0');
    // Typing "(" closed the call: the cursor goes back inside it.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    const sig = page.locator('.cm-rulekit-signature');
    await sig.waitFor();
    expect(await sig.locator('strong').first().textContent()).toContain('start_bit');
    await shot(page, '5b-signature');
    await page.close();
  });

  it('a ruleset: verdict and deciding rule per packet; its diagnostics land inside the JSON', async () => {
    const page = await open(url);
    await page.check('#mode-ruleset');
    await poll(() => page.textContent('[data-testid=verdict-2]')).toContain('allow by #0 office-ssh');
    expect(await page.textContent('[data-testid=verdict-0] strong')).toBe('allow');
    expect(await page.textContent('[data-testid=verdict-1]')).toContain('block by #3 anonymizers');
    expect(await page.textContent('[data-testid=verdict-3]')).toContain('block by #4 no-sip');
    // A misspelt field in one rule, pasted in: the squiggle sits on the field, inside the JSON string.
    const text = defaultState().ruleset;
    expect(text).toContain('udp.dstport in {5060 5061}');
    await paste(page, 'ruleset-editor', text.replace('udp.dstport in {5060 5061}', 'udp.dstprt in {5060 5061}'));
    const squiggle = page.locator('#ruleset-editor .cm-lintRange-error');
    await squiggle.first().waitFor();
    expect(await squiggle.first().textContent()).toBe('udp.dstprt');
    await poll(() => page.textContent('#rules-problems')).toContain('did you mean udp.dstport?');
    await shot(page, '6-ruleset');
    // Hover inside an expression string of the JSON: the field's documentation.
    await page.locator('#ruleset-editor .cm-line').getByText('"tcp.dstport == 22"').hover({ position: { x: 20, y: 5 } });
    await page.locator('.cm-rulekit-hover').waitFor();
    expect(await page.textContent('.cm-rulekit-hover')).toContain('TCP destination port');
    await page.close();
  });

  it('the state lives in the URL: the link reproduces the page', async () => {
    const page = await open(url);
    await typeExpression(page, 'udp.dstport == 5060');
    await page.fill('[aria-label="packet 1 tcp.dstport"]', '');
    await page.fill('[aria-label="packet 1 udp.dstport"]', '5060');
    await poll(() => page.textContent('[data-testid=verdict-0] strong')).toBe('match');
    await page.click('#tab-logpush');
    // The page writes its state into the hash a moment after each change: wait until it holds all of it.
    const saved = async () => (await decodeState(new URL(page.url()).hash, defaultState())).state;
    await poll(async () => [(await saved())?.tab, (await saved())?.expression, (await saved())?.packets[0]?.['udp.dstport']]).toEqual(['logpush', 'udp.dstport == 5060', '5060']);
    const link = page.url();
    expect(link).toMatch(/#s=v1\.[\w-]+$/);
    await page.close();

    const again = await open(link);
    expect(await again.getAttribute('#tab-logpush', 'aria-selected')).toBe('true');
    await again.click('#tab-rules');
    expect(await editorText(again, 'expression-editor')).toBe('udp.dstport == 5060');
    expect(await again.inputValue('[aria-label="packet 1 udp.dstport"]')).toBe('5060');
    await poll(() => again.textContent('[data-testid=verdict-0] strong')).toBe('match');
    expect(await again.textContent('[data-testid=verdict-3] strong')).toBe('match');
    await shot(again, '7-from-link');
    await again.close();
  });

  it('an HTTP phase: the expression checks with the HTTP fields and runs over the requests list', async () => {
    const page = await open(url);
    await page.selectOption('#phase', 'http_request_firewall_custom');
    // The packet field of the sample is not a field of the HTTP phases: an error that names the phase.
    await poll(() => page.textContent('#rules-problems')).toContain('the http_request_firewall_custom phase reads HTTP request fields');
    expect(await page.isVisible('#requests-block')).toBe(true);
    expect(await page.isVisible('#packets-block')).toBe(false);
    await typeExpression(page, 'http.request.uri.path contains "/admin"');
    await poll(() => page.textContent('#request-results')).toContain('GET https://example.com/admin/users → match');
    expect(await page.textContent('#request-results')).toContain('GET https://example.com/ → no match');
    expect(await page.textContent('#rules-problems')).toBe('no problems');
    // A HAR document pasted into the requests list is read too.
    await page.fill('#requests', JSON.stringify({ log: { entries: [{ request: { method: 'POST', url: 'https://example.com/admin' } }] } }));
    await poll(() => page.textContent('#request-results')).toBe('POST https://example.com/admin → match');
    await shot(page, '8-http-phase');
    // The phase is part of the link (saved a moment after the last change).
    await poll(async () => (await decodeState(new URL(page.url()).hash, defaultState())).state?.phase).toBe('http_request_firewall_custom');
    const link = page.url();
    const again = await open(link);
    expect(await again.inputValue('#phase')).toBe('http_request_firewall_custom');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await again.close();
    await page.close();
  });

  it('the Logpush tab: kept and dropped per line, with the filter read back', async () => {
    const page = await open(url);
    await page.click('#tab-logpush');
    await poll(() => page.textContent('[data-testid=line-1]')).toBe('kept');
    expect(await page.textContent('[data-testid=line-2]')).toBe('dropped');
    expect(await page.textContent('[data-testid=line-3]')).toBe('dropped');
    expect(await page.textContent('[data-testid=line-4]')).toBe('kept');
    expect(await page.textContent('[data-testid=readable]')).toBe('EdgeResponseStatus >= 500 and (ClientRequestHost != "health.example.com" or ClientCountry in ["de", "fr"])');
    await shot(page, '8a-logpush-kept-dropped');
    // Another dataset: the filter's keys are checked against it.
    await page.selectOption('#dataset', 'dns_logs');
    await page.locator('#filter-editor .cm-lintRange-error').first().waitFor();
    await poll(() => page.textContent('#filter-problems')).toContain('EdgeResponseStatus');
    await shot(page, '8b-logpush-other-dataset');
    await page.close();
  });

  it('a dropped capture: its summary, read in the page, equals rulekit/node\'s', async () => {
    const page = await open(url);
    await page.check('#mode-ruleset');
    await page.click('#tab-capture');
    const bytes = readFileSync(CAPTURE);
    // A drop as the browser makes it: a DataTransfer holding the file, dropped on the zone.
    await page.evaluate(
      ({ data, name }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(data)], name, { type: 'application/octet-stream' }));
        document.querySelector('#dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { data: [...bytes], name: 'two-interfaces.pcapng' },
    );
    const totals = page.locator('[data-testid=capture-totals]');
    await totals.waitFor();
    const rulesetText = await page.evaluate(() => document.querySelector('#ruleset-editor .cm-content')!.textContent);
    expect(rulesetText).toContain('edge firewall');
    const lists = JSON.parse(await page.inputValue('#lists')) as Record<string, string[]>;
    const expected = await runSimulation(defaultState().ruleset, CAPTURE, { lists, threads: 0 });
    const s = expected.summary!;
    expect(await page.textContent('[data-testid=capture-facts]')).toContain(`pcapng, ${s.packets} packet(s)`);
    expect(await totals.textContent()).toBe(`${s.packets} packet(s): ${s.verdicts.block} blocked, ${s.verdicts.allow} allowed (${s.defaultAllowed} by default: no rule decided)`);
    const rows = await page.locator('table.summary tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows.map((cells) => [cells[3], cells[4], cells[5]])).toEqual(s.rules.map((r) => [String(r.matched), String(r.decided), r.examples.map((e) => e.index + 1).join(', ')]));
    // The drawings: verdicts over time (every packet in a column) and the blocked sources (one bar each).
    const drawings = page.locator('[data-testid=capture-drawings]');
    const columns = await drawings.locator('svg.time rect title').allTextContents();
    expect(columns.reduce((n, t) => n + Number(/: (\d+) (?:block|allow)$/.exec(t)![1]), 0)).toBe(s.packets);
    const sources = await drawings.locator('svg.bars rect title').allTextContents();
    expect(sources.reduce((n, t) => n + Number(/: (\d+) packet/.exec(t)![1]), 0)).toBe(s.verdicts.block);
    await shot(page, '9-capture');

    // The diff tab counts the dropped capture: the same packets through both sides.
    await page.click('#tab-diff');
    await poll(() => page.textContent('[data-testid=diff-counts]')).toContain('over two-interfaces.pcapng');
    expect(await page.textContent('[data-testid=diff-counts]')).toContain(`of ${s.packets} packet(s) change fate`);
    await shot(page, '9b-diff-over-capture');

    // The file input too (the zone is a label around it).
    await page.setInputFiles('#capture-file', CAPTURE);
    await poll(() => page.textContent('[data-testid=capture-facts]')).toContain('two-interfaces.pcapng');
    await page.close();
  });
});
