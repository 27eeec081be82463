/**
 * The playground page: three tabs over rulekit's core, all in the browser. The rules tab checks an
 * expression or a ruleset as you type and runs the packet table through it; the Logpush tab runs a
 * filter over log lines; the capture tab reads a dropped pcap/pcapng file and simulates it. The state
 * lives in the URL's hash (state.ts), so a link reproduces the page.
 * @module
 */
import type { EditorView } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import type { Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { DATASET_NAMES, PHASE_CATALOG, type Diagnostic } from '../index.js';
import { renderFilterExplanation } from '../logpush/index.js';
import { expressionLanguage } from './language.js';
import { lintDiagnostics, requestRecheck, rulekitLinter, toLintDiagnostic } from './lint.js';
import { expressionAssist, logFilterAssist, rulesetAssist } from './assist.js';
import { createEditor, setText } from './editor.js';
import { byId, debounce, fill, h } from './dom.js';
import { PacketTable } from './packets-table.js';
import { barChart, binTimes, timeChart } from './charts.js';
import { countDiffCapture, countDiffPackets, countDiffRequests, countDiffTraffic, runDiff, type DiffCounts, type DiffOutcome } from './diff-run.js';
import { captureFormatOf } from '../capture/index.js';
import { readTrafficRecords } from '../http/index.js';
import { isHttpPhase, packetOf, parseLists, rulesOf, runExpression, runLogFilter, runRuleset, simulateCapture, type CaptureOutcome, type RequestOutcome, type RulesOutcome } from './run.js';
import { decodeState, encodeState, TABS, type PlaygroundState, type Tab } from './state.js';
import { defaultState } from './samples.js';

let state: PlaygroundState = defaultState();
let rulesetCursor = 0;

const lists = () => parseLists(state.lists).lists;

// ---- the rules tab ----

const expressionEditor = createEditor({
  parent: byId('expression-editor'),
  doc: state.expression,
  label: 'expression',
  placeholder: 'tcp.dstport == 443',
  extensions: [
    expressionLanguage(),
    rulekitLinter((text) => lintDiagnostics(runExpression(text, state.lists, [], state.phase).diagnostics.map((d) => d.diagnostic), text.length)),
    ...expressionAssist(lists),
  ],
  onChange: (text) => {
    state.expression = text;
    changed();
  },
});

const rulesetEditor = createEditor({
  parent: byId('ruleset-editor'),
  doc: state.ruleset,
  label: 'ruleset',
  lines: true,
  extensions: [
    json(),
    rulekitLinter((text) => runRuleset(text, state.lists, []).diagnostics.map((d) => toLintDiagnostic(d.diagnostic, d.placed, text.length))),
    ...rulesetAssist(lists),
  ],
  onChange: (text) => {
    state.ruleset = text;
    changed();
  },
  onCursor: (offset) => {
    rulesetCursor = offset;
    changed();
  },
});

const listsInput = byId<HTMLTextAreaElement>('lists');
listsInput.addEventListener('input', () => {
  state.lists = listsInput.value;
  requestRecheck(expressionEditor);
  requestRecheck(rulesetEditor);
  changed();
});

const packetTable = new PacketTable(byId('packets'), state, () => changed());

// The phase an expression is checked for: its field set, and whether it runs over packets or requests.
const phaseSelect = byId<HTMLSelectElement>('phase');
fill(phaseSelect, ...Object.entries(PHASE_CATALOG).map(([name, p]) => h('option', { value: name }, `${name} (${p.fields === 'http' ? 'HTTP' : 'packets'})`)));
phaseSelect.addEventListener('change', () => {
  state.phase = phaseSelect.value;
  requestRecheck(expressionEditor);
  changed();
});

const requestsInput = byId<HTMLTextAreaElement>('requests');
requestsInput.addEventListener('input', () => {
  state.requests = requestsInput.value;
  changed();
});

/** The requests list's outcomes: each request with its verdict and deciding rule. */
function showRequests(out: RulesOutcome): void {
  const problems = out.requestProblems ?? [];
  fill(byId('request-problems'), ...problems.map((p) => h('li', { class: p.startsWith('error') ? 'problem-error' : 'problem-warning' }, p)));
  fill(
    byId('request-results'),
    ...(out.requests ?? []).map((r: RequestOutcome) =>
      h('li', { class: `verdict-${r.verdict.replace(/ /g, '-')}` }, h('code', {}, r.label), ' → ', h('strong', {}, r.verdict), r.decidedBy ? ` (rule #${r.decidedBy.index}${r.decidedBy.ref ? ` ${r.decidedBy.ref}` : ''})` : ''),
    ),
  );
}

for (const mode of ['expression', 'ruleset'] as const) {
  byId(`mode-${mode}`).addEventListener('change', () => {
    state.mode = mode;
    showMode();
    changed();
  });
}

function showMode(): void {
  byId<HTMLInputElement>(`mode-${state.mode}`).checked = true;
  byId('expression-editor').hidden = state.mode !== 'expression';
  byId('ruleset-editor').hidden = state.mode !== 'ruleset';
  // A ruleset is checked for its own "phase": the selector would be ignored, so it says so by being off.
  phaseSelect.disabled = state.mode === 'ruleset';
}

/** The problems list under an editor: each message with its code, and its fix as a button. */
function showProblems(el: HTMLElement, view: EditorView, items: { diagnostic: Diagnostic; lint: LintDiagnostic }[]): void {
  if (!items.length) {
    fill(el, h('li', { class: 'ok' }, 'no problems'));
    return;
  }
  fill(
    el,
    ...items.map(({ diagnostic: d, lint }) =>
      h(
        'li',
        { class: `problem-${d.severity}` },
        h('span', { class: 'severity' }, d.severity),
        ' ',
        h('code', {}, d.code),
        ' ',
        d.message,
        ...(lint.actions ?? []).map((a) => h('button', { class: 'fix', onclick: () => a.apply(view, lint.from, lint.to) }, a.name)),
      ),
    ),
  );
}

function showRules(): void {
  const out: RulesOutcome = state.mode === 'expression' ? runExpression(state.expression, state.lists, state.packets, state.phase, state.requests) : runRuleset(state.ruleset, state.lists, state.packets, rulesetCursor, state.requests);
  // An HTTP phase (the selector's for an expression, the body's for a ruleset) runs over the requests list.
  const http = out.requests !== undefined;
  byId('packets-block').hidden = http;
  byId('requests-block').hidden = !http;
  byId('phase-note').textContent = state.mode === 'ruleset' ? `a ruleset is checked for its own "phase"${out.phase ? `: ${out.phase}` : ' (this one has none)'}` : isHttpPhase(state.phase) ? 'HTTP fields; runs over the requests' : 'packet fields; runs over the packets';
  if (http) showRequests(out);
  const view = state.mode === 'expression' ? expressionEditor : rulesetEditor;
  const length = view.state.doc.length;
  showProblems(byId('rules-problems'), view, out.diagnostics.map((d) => ({ diagnostic: d.diagnostic, lint: toLintDiagnostic(d.diagnostic, d.placed, length) })));
  packetTable.show(out.packets);
  byId('lists-error').textContent = out.error ?? '';
  byId('views-title').textContent = state.mode === 'expression' ? 'The expression' : (out.views.title ?? 'No rule with an expression');
  byId('ast').textContent = out.views.ast ?? '—';
  byId('canonical').textContent = out.views.canonical ?? '— (fix the errors first)';
  byId('wireshark').textContent = out.views.wireshark ?? (out.views.wiresharkNote ? `no equivalent: ${out.views.wiresharkNote}` : '— (fix the errors first)');
}

// ---- the Logpush tab ----

const datasetSelect = byId<HTMLSelectElement>('dataset');
fill(datasetSelect, ...DATASET_NAMES.map((n) => h('option', { value: n }, n)));
datasetSelect.addEventListener('change', () => {
  state.dataset = datasetSelect.value;
  requestRecheck(filterEditor);
  changed();
});

const filterEditor = createEditor({
  parent: byId('filter-editor'),
  doc: state.filter,
  label: 'Logpush filter',
  lines: true,
  extensions: [json(), rulekitLinter((text) => lintDiagnostics(runLogFilter(text, state.dataset, '').diagnostics, text.length)), ...logFilterAssist(() => state.dataset)],
  onChange: (text) => {
    state.filter = text;
    changed();
  },
});

const linesEditor = createEditor({
  parent: byId('lines-editor'),
  doc: state.lines,
  label: 'log lines (NDJSON)',
  lines: true,
  extensions: [],
  onChange: (text) => {
    state.lines = text;
    changed();
  },
});

function showLogpush(): void {
  const out = runLogFilter(state.filter, state.dataset, state.lines);
  const length = filterEditor.state.doc.length;
  showProblems(byId('filter-problems'), filterEditor, out.diagnostics.map((d) => ({ diagnostic: d, lint: lintDiagnostics([d], length)[0]! })));
  byId('readable').textContent = out.readable ?? '— (fix the errors first)';
  byId('filter-canonical').textContent = out.canonical ?? '— (fix the errors first)';
  const kept = out.lines.filter((l) => l.kept).length;
  fill(
    byId('lines-results'),
    h(
      'table',
      { class: 'lines' },
      h('thead', {}, h('tr', {}, h('th', {}, 'line'), h('th', {}, 'outcome'), h('th', {}, 'why'))),
      h(
        'tbody',
        {},
        ...out.lines.map((l) => {
          const outcome = l.error ? 'error' : l.kept === undefined ? '—' : l.kept ? 'kept' : 'dropped';
          const why = l.error ?? (l.explanation ? renderFilterExplanation(l.explanation) : '');
          return h('tr', {}, h('td', { class: 'num' }, String(l.line)), h('td', { class: `outcome-${outcome}`, 'data-testid': `line-${l.line}` }, outcome), h('td', {}, h('pre', {}, why)));
        }),
      ),
    ),
    h(
      'p',
      { class: 'totals' },
      out.readable === undefined
        ? `${out.lines.length} line(s); the filter has errors, so none is judged`
        : `${out.lines.length} line(s): ${kept} kept (would be pushed), ${out.lines.filter((l) => l.kept === false).length} dropped${out.lines.some((l) => l.error) ? `, ${out.lines.filter((l) => l.error).length} not a JSON object` : ''}`,
    ),
  );
}

// ---- the capture tab ----

let lastCapture: { name: string; bytes: Uint8Array } | undefined;

async function readCaptureFile(file: File): Promise<void> {
  lastCapture = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  await showCapture();
}

async function showCapture(): Promise<void> {
  const el = byId('capture-summary');
  if (!lastCapture) {
    fill(el, h('p', { class: 'hint' }, 'No capture yet. It is read here, in this page: nothing is uploaded.'));
    return;
  }
  const { rules, error } = rulesOf(state.mode, state.expression, state.ruleset);
  if (!rules) {
    fill(el, h('p', { class: 'problem-error' }, error ?? 'no rules'));
    return;
  }
  fill(el, h('p', {}, `reading ${lastCapture.name}…`));
  const started = performance.now();
  const out = await simulateCapture(lastCapture.bytes, rules, state.lists);
  renderCapture(el, lastCapture.name, out, performance.now() - started);
}

function renderCapture(el: HTMLElement, name: string, out: CaptureOutcome, ms: number): void {
  const c = out.capture;
  const s = out.summary;
  const frames = (xs: { index: number }[]) => xs.map((x) => x.index + 1).join(', ');
  fill(
    el,
    h('p', { 'data-testid': 'capture-facts' }, h('strong', {}, name), `: ${c.format ?? 'unknown format'}, ${c.records} packet(s), ${c.bytes} bytes${c.complete ? '' : ' (reading stopped early)'}; ${ms.toFixed(0)} ms`),
    s &&
      h(
        'p',
        { class: 'totals', 'data-testid': 'capture-totals' },
        `${s.packets} packet(s): ${s.verdicts.block} blocked, ${s.verdicts.allow} allowed (${s.defaultAllowed} by default: no rule decided)`,
      ),
    s && captureDrawings(out),
    s &&
      h(
        'table',
        { class: 'summary' },
        h('thead', {}, h('tr', {}, h('th', {}, 'rule'), h('th', {}, 'action'), h('th', {}, 'expression'), h('th', {}, 'matched'), h('th', {}, 'decided'), h('th', {}, 'example frames'))),
        h(
          'tbody',
          {},
          ...s.rules.map((r) =>
            h(
              'tr',
              { class: r.enabled ? '' : 'disabled' },
              h('td', {}, `#${r.index}${r.ref ? ` ${r.ref}` : ''}${r.description ? ` (${r.description})` : ''}`),
              h('td', {}, r.enabled ? r.action : `${r.action} (disabled)`),
              h('td', {}, h('code', {}, r.expression)),
              h('td', { class: 'num' }, String(r.matched)),
              h('td', { class: 'num' }, String(r.decided)),
              h('td', {}, frames(r.examples)),
            ),
          ),
        ),
      ),
    out.diagnostics.length > 0 && h('ul', { class: 'problems' }, ...out.diagnostics.map((d) => h('li', { class: `problem-${d.severity}` }, `${d.pointer ?? ''} ${d.message}`))),
    c.diagnostics.length > 0 &&
      h('details', { open: true }, h('summary', {}, `${c.diagnostics.length + c.droppedDiagnostics} problem(s) in the capture`), h('ul', { class: 'problems' }, ...c.diagnostics.map((d) => h('li', { class: `problem-${d.severity}` }, d.message)))),
  );
}

/** A figure: a caption over a drawing (and a legend). */
function figure(caption: string, drawing: Element, legend?: Element): HTMLElement {
  const f = h('figure', {}, h('figcaption', {}, caption), legend);
  f.append(drawing);
  return f;
}

const legend = (...items: [string, string][]) => h('div', { class: 'legend' }, ...items.flatMap(([cls, text]) => [h('span', { class: `swatch ${cls}` }), text]));

/** The capture's drawings: verdicts over time, and the sources blocked most. */
function captureDrawings(out: CaptureOutcome): HTMLElement | undefined {
  const { bins, binMs } = binTimes(out.times ?? []);
  if (!bins.length) return undefined;
  const blocked = out.topBlocked ?? [];
  return h(
    'div',
    { class: 'drawings', 'data-testid': 'capture-drawings' },
    figure('Verdicts over time', timeChart(bins, ['block', 'allow'], binMs, `packets over time, ${bins.length} bins: blocked and allowed`), legend(['swatch-block', 'blocked'], ['swatch-allow', 'allowed'])),
    blocked.length
      ? figure('Top blocked sources', barChart(blocked.map((b) => ({ label: b.source, value: b.count, kind: 'bar-block' })), 'blocked packets per source address', 'packet(s) blocked'))
      : h('figure', {}, h('figcaption', {}, 'Top blocked sources'), h('p', { class: 'hint' }, 'nothing blocked')),
  );
}

// ---- the diff tab ----

const diffEditor = (id: string, label: string, key: 'diffOld' | 'diffNew') =>
  createEditor({
    parent: byId(id),
    doc: state[key],
    label,
    lines: true,
    extensions: [json(), rulekitLinter((text) => runRuleset(text, state.lists, []).diagnostics.map((d) => toLintDiagnostic(d.diagnostic, d.placed, text.length))), ...rulesetAssist(lists)],
    onChange: (text) => {
      state[key] = text;
      changed();
    },
  });
const diffOldEditor = diffEditor('diff-old-editor', 'ruleset before the change', 'diffOld');
const diffNewEditor = diffEditor('diff-new-editor', 'ruleset after the change', 'diffNew');

/** Later diffs win: a capture counted slowly must not overwrite the result of a newer edit. */
let diffGeneration = 0;

/** A file of HTTP traffic dropped on the diff tab (NDJSON requests, Logpush lines, HAR), counted for HTTP phases. */
let lastTraffic: { name: string; text: string } | undefined;

/**
 * The traffic the diff is counted over: for network phases the dropped capture, else the sample packets;
 * for HTTP phases the dropped traffic file, else the sample requests of the rules tab.
 */
async function diffCounts(out: DiffOutcome): Promise<DiffCounts | undefined> {
  const { diffOld, diffNew, lists: listsText } = state;
  if (out.diff!.unit === 'request') {
    if (lastTraffic) return countDiffTraffic(diffOld, diffNew, listsText, lastTraffic.text, lastTraffic.name, out.diff);
    const read = readTrafficRecords(state.requests);
    return countDiffRequests(diffOld, diffNew, listsText, read.records, `the ${read.records.length} sample request(s) of the rules tab`, out.diff, read.indexOf);
  }
  if (lastCapture) return countDiffCapture(diffOld, diffNew, listsText, lastCapture.bytes, lastCapture.name, out.diff);
  return countDiffPackets(diffOld, diffNew, listsText, state.packets.map((row) => packetOf(row).packet), `the ${state.packets.length} sample packet(s) of the rules tab`, out.diff);
}

async function showDiff(): Promise<void> {
  const generation = ++diffGeneration;
  const out = runDiff(state.diffOld, state.diffNew, state.lists);
  const slow = out.diff?.unit === 'request' ? lastTraffic : lastCapture;
  renderDiff(out, undefined, slow ? `counting ${slow.name}…` : undefined);
  if (!out.diff || out.error) return;
  const counts = await diffCounts(out);
  if (generation === diffGeneration) renderDiff(out, counts);
}

/** A file dropped on the diff tab: a capture (network phases) or HTTP traffic (HTTP phases), told by its first bytes. */
async function readDiffFile(file: File): Promise<void> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (captureFormatOf(bytes.subarray(0, 4))) lastCapture = { name: file.name, bytes };
  else lastTraffic = { name: file.name, text: new TextDecoder().decode(bytes) };
  void showDiff();
}

function renderDiff(out: DiffOutcome, counts: DiffCounts | undefined, pending?: string): void {
  const el = byId('diff-result');
  if (!out.diff) {
    fill(el, h('p', { class: 'problem-error' }, out.error ?? 'no diff'));
    return;
  }
  const unit = out.diff.unit;
  const perRegion = new Map((counts?.regions ?? []).map((r) => [r.region, r.count]));
  const exact = out.regions.filter((r) => r.kind === 'exact').length;
  fill(
    el,
    out.error && h('p', { class: 'problem-error' }, out.error),
    out.problems.length > 0 && h('ul', { class: 'problems' }, ...out.problems.map((p) => h('li', { class: p.startsWith('error') ? 'problem-error' : 'problem-warning' }, p))),
    h(
      'p',
      { class: 'totals', 'data-testid': 'diff-totals' },
      out.regions.length ? `${out.regions.length} region(s) of ${unit}s change fate: ${exact} exact, ${out.regions.length - exact} unknown` : `no ${unit} changes fate`,
    ),
    out.regions.length > 0 &&
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'regions' },
          h('thead', {}, h('tr', {}, h('th', { class: 'num' }, '#'), h('th', {}, 'change'), h('th', {}, 'where'), h('th', {}, 'before'), h('th', {}, 'after'), h('th', {}, 'witness'), counts && h('th', { class: 'num' }, 'changed'))),
          h(
            'tbody',
            {},
            ...out.regions.map((r, i) =>
              h(
                'tr',
                { class: `kind-${r.kind}`, 'data-testid': `region-${i}` },
                h('td', { class: 'num' }, String(i + 1)),
                h('td', { class: `change-${r.change}` }, r.kind === 'unknown' ? `${r.change}?` : r.change),
                h('td', { class: 'where' }, h('code', {}, r.where), r.reason ? h('div', { class: 'problem' }, `unknown: ${r.reason}`) : undefined),
                h('td', {}, r.old),
                h('td', {}, r.new),
                h('td', { class: 'witness' }, r.witness ? h('code', {}, r.witness) : '—'),
                counts && h('td', { class: 'num' }, String(perRegion.get(i) ?? 0)),
              ),
            ),
          ),
        ),
      ),
    pending && h('p', { class: 'hint' }, pending),
    counts &&
      h(
        'p',
        { class: 'totals', 'data-testid': 'diff-counts' },
        `over ${counts.over}: ${counts.changed} of ${counts.packets} ${unit}(s) change fate (${counts.verdictChanged} verdict, ${counts.changed - counts.verdictChanged} deciding rule only)${counts.outside ? `; ${counts.outside} outside every region (a bug: please report it)` : ''}`,
      ),
    counts &&
      counts.perRule.length > 0 &&
      h(
        'div',
        { class: 'drawings', 'data-testid': 'diff-drawings' },
        figure(
          'Changed traffic per rule',
          barChart(counts.perRule.map((p) => ({ label: p.label, value: p.count, kind: p.verdictChanged ? 'bar-block' : 'bar-rule' })), `changed ${unit}s per pair of deciding rules`, `${unit}(s)`),
          legend(['swatch-block', 'verdict changes'], ['swatch-rule', 'deciding rule changes']),
        ),
      ),
    counts &&
      counts.perRule.length > 0 &&
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'pairs', 'data-testid': 'diff-pairs' },
          h('thead', {}, h('tr', {}, h('th', {}, 'before → after'), h('th', { class: 'num' }, `${unit}s`), h('th', {}, 'for example (the fields the rules read)'))),
          h('tbody', {}, ...counts.perRule.map((p) => h('tr', {}, h('td', { class: p.verdictChanged ? 'change-verdict' : 'change-rule' }, p.label), h('td', { class: 'num' }, String(p.count)), h('td', { class: 'witness' }, p.example ? h('code', {}, p.example) : '—')))),
        ),
      ),
    !!counts?.problems?.length && h('details', {}, h('summary', {}, `${counts.problems.length} line(s) of ${counts.over} skipped`), h('ul', { class: 'problems' }, ...counts.problems.slice(0, 20).map((p) => h('li', { class: 'problem-error' }, p)))),
  );
}

const dropzone = byId('dropzone');
const fileInput = byId<HTMLInputElement>('capture-file');
fileInput.addEventListener('change', () => {
  const f = fileInput.files?.[0];
  if (f) void readCaptureFile(f);
});
dropzone.addEventListener('dragover', (e) => {
  e.preventDefault();
  dropzone.classList.add('over');
});
dropzone.addEventListener('dragleave', () => dropzone.classList.remove('over'));
dropzone.addEventListener('drop', (e) => {
  e.preventDefault();
  dropzone.classList.remove('over');
  const f = e.dataTransfer?.files[0];
  if (f) {
    selectTab('capture');
    void readCaptureFile(f);
  }
});
const diffDropzone = byId('diff-dropzone');
const diffFileInput = byId<HTMLInputElement>('diff-file');
diffFileInput.addEventListener('change', () => {
  const f = diffFileInput.files?.[0];
  if (f) void readDiffFile(f);
});
diffDropzone.addEventListener('dragover', (e) => {
  e.preventDefault();
  diffDropzone.classList.add('over');
});
diffDropzone.addEventListener('dragleave', () => diffDropzone.classList.remove('over'));
diffDropzone.addEventListener('drop', (e) => {
  e.preventDefault();
  diffDropzone.classList.remove('over');
  const f = e.dataTransfer?.files[0];
  if (f) void readDiffFile(f);
});
// A file dropped anywhere on the page is read too (the browser would otherwise open it): by the diff tab
// when it is open, else as a capture.
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  if (e.defaultPrevented) return;
  e.preventDefault();
  const f = e.dataTransfer?.files[0];
  if (!f) return;
  if (state.tab === 'diff') return void readDiffFile(f);
  selectTab('capture');
  void readCaptureFile(f);
});

// ---- tabs, the URL, updates ----

function selectTab(tab: Tab): void {
  state.tab = tab;
  for (const t of TABS) {
    byId(`tab-${t}`).setAttribute('aria-selected', String(t === tab));
    byId(`panel-${t}`).hidden = t !== tab;
  }
  if (tab === 'capture') byId('capture-rules').textContent = state.mode === 'expression' ? 'the expression of the rules tab, as one blocking rule' : 'the ruleset of the rules tab';
  if (tab === 'diff') void showDiff();
  saveState();
}

for (const t of TABS) byId(`tab-${t}`).addEventListener('click', () => selectTab(t));

const saveState = debounce(async () => {
  const hash = await encodeState(state);
  if (location.hash !== hash) history.replaceState(null, '', hash);
}, 300);

const refresh = debounce(() => {
  showRules();
  showLogpush();
  if (state.tab === 'capture') void showCapture();
  if (state.tab === 'diff') void showDiff();
}, 60);

function changed(): void {
  refresh();
  saveState();
}

byId('copy-link').addEventListener('click', async () => {
  history.replaceState(null, '', await encodeState(state));
  try {
    await navigator.clipboard.writeText(location.href);
    byId('copy-link').textContent = 'link copied';
  } catch {
    byId('copy-link').textContent = 'link in the address bar';
  }
  setTimeout(() => (byId('copy-link').textContent = 'copy link'), 2000);
});

byId('reset').addEventListener('click', () => {
  load(defaultState());
  history.replaceState(null, '', location.pathname + location.search);
});

/** Show a state: the editors' texts, the table, the tab. */
function load(next: PlaygroundState): void {
  state = next;
  packetTable.setModel(state);
  if (expressionEditor.state.doc.toString() !== state.expression) setText(expressionEditor, state.expression);
  if (rulesetEditor.state.doc.toString() !== state.ruleset) setText(rulesetEditor, state.ruleset);
  if (filterEditor.state.doc.toString() !== state.filter) setText(filterEditor, state.filter);
  if (linesEditor.state.doc.toString() !== state.lines) setText(linesEditor, state.lines);
  if (diffOldEditor.state.doc.toString() !== state.diffOld) setText(diffOldEditor, state.diffOld);
  if (diffNewEditor.state.doc.toString() !== state.diffNew) setText(diffNewEditor, state.diffNew);
  listsInput.value = state.lists;
  if (!Object.hasOwn(PHASE_CATALOG, state.phase)) state.phase = 'network_transit';
  phaseSelect.value = state.phase;
  requestsInput.value = state.requests;
  if (!DATASET_NAMES.includes(state.dataset)) state.dataset = 'http_requests';
  datasetSelect.value = state.dataset;
  for (const v of [expressionEditor, rulesetEditor, filterEditor, diffOldEditor, diffNewEditor]) requestRecheck(v);
  showMode();
  selectTab(state.tab);
  refresh();
}

async function start(): Promise<void> {
  const { state: fromLink, error } = await decodeState(location.hash, defaultState());
  if (error) byId('notice').textContent = error;
  load(fromLink ?? defaultState());
  document.body.dataset.ready = 'true';
}

window.addEventListener('hashchange', () => void start());
void start();
