/**
 * Refresh the Logpush source tables (`src/logpush/datasets/source/`) from a checkout of
 * cloudflare/cloudflare-docs: every dataset page under
 * `src/content/docs/logs/logpush/logpush-job/datasets/{zone,account}/` (a `## Field` heading, then
 * ``Type: `…` ``, then the description), the Filters page (`…/logpush-job/filters.mdx`: the operator ×
 * field-type table and the limits) and its filtering-limitations note
 * (`src/content/partials/logs/filtering-limitations.mdx`).
 *
 *   npm run datasets:refresh -- <docs checkout> [--revision <commit>] [--out <folder>]
 *   npm run datasets            # then regenerate the catalogs, the index and docs/datasets.md
 *
 * Revisions: in a git checkout, each page's last commit (`git log -1 -- <page>`) and HEAD with its date;
 * otherwise a `revisions.json` at the checkout's root (`{"<page path>": "<commit>", …}`) or `--revision`.
 * The parsing lives in scripts/docs-pages.ts (unit-tested on pages written in the tests).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SOURCE_DIR } from './dataset-files.js';
import {
  DATASETS_PAGE_DIR, FILTERS_PAGE, LIMITATIONS_PAGE, parseDatasetPage, parseFiltersPage, parseLimitationsNote,
  type DatasetScope, type SourceDataset,
} from './docs-pages.js';

const DOCS_REPO = 'cloudflare/cloudflare-docs';

function usage(message: string): never {
  console.error(`${message}\nusage: npm run datasets:refresh -- <cloudflare-docs checkout> [--revision <commit>] [--out <folder>]`);
  process.exit(2);
}

const args = process.argv.slice(2);
/** The value of `--name <value>`, and the argument indexes it takes. */
function flag(name: string): { value?: string; at: number[] } {
  const i = args.indexOf(name);
  if (i < 0) return { at: [] };
  if (!args[i + 1] || args[i + 1]!.startsWith('--')) usage(`${name} needs a value`);
  return { value: args[i + 1], at: [i, i + 1] };
}
const rev = flag('--revision');
const outFlag = flag('--out');
const revisionArg = rev.value;
/** Where the tables go: the repository's source folder, or `--out` (tests). */
const SOURCE_OUT = outFlag.value ?? SOURCE_DIR;
const unknown = args.filter((a, i) => a.startsWith('--') && !rev.at.includes(i) && !outFlag.at.includes(i));
if (unknown.length) usage(`unknown option ${unknown[0]}`);
const checkout = args.find((a, i) => !a.startsWith('--') && !rev.at.includes(i) && !outFlag.at.includes(i));
if (!checkout) usage('name the docs checkout');
if (!existsSync(join(checkout, DATASETS_PAGE_DIR))) usage(`${checkout} has no ${DATASETS_PAGE_DIR}/`);

const isGit = existsSync(join(checkout, '.git'));
const git = (...a: string[]) => execFileSync('git', ['-C', checkout, ...a], { encoding: 'utf8' }).trim();
/** `revisions.json`: page path → commit; `_snapshot`: what the checkout is; `_notes`: page path → a note kept in its table. */
const listed = (existsSync(join(checkout, 'revisions.json'))
  ? JSON.parse(readFileSync(join(checkout, 'revisions.json'), 'utf8'))
  : {}) as Record<string, string> & { _notes?: Record<string, string> };

/** The commit a page was read at. */
function revisionOf(path: string): string {
  const r = isGit ? git('log', '-1', '--format=%H', '--', path) : (listed[path] as string | undefined) ?? revisionArg;
  if (!r) usage(`no revision for ${path}: not a git checkout, not in revisions.json, and no --revision`);
  return r;
}

const snapshot = isGit
  ? (() => {
      const [commit, date] = git('log', '-1', '--format=%H %cI').split(' ');
      return { repo: DOCS_REPO, commit, date };
    })()
  : { repo: DOCS_REPO, commit: revisionArg ?? null, date: null, note: listed['_snapshot'] ?? 'not a git checkout: each table records the revision of its page' };

// Dataset pages, zone then account, in file-name order.
const datasets: SourceDataset[] = [];
for (const scope of ['zone', 'account'] as DatasetScope[]) {
  const dir = join(checkout, DATASETS_PAGE_DIR, scope);
  if (!existsSync(dir)) usage(`${checkout} has no ${DATASETS_PAGE_DIR}/${scope}/`);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && !f.startsWith('index.')).sort()) {
    const path = `${DATASETS_PAGE_DIR}/${scope}/${file}`;
    const page = parseDatasetPage(readFileSync(join(dir, file), 'utf8'), { scope, file });
    const note = listed._notes?.[path];
    datasets.push({ ...page, source: { repo: DOCS_REPO, path, revision: revisionOf(path), ...(note ? { note } : {}) } });
  }
}
const filters = parseFiltersPage(readFileSync(join(checkout, FILTERS_PAGE), 'utf8'));
const limitations = parseLimitationsNote(readFileSync(join(checkout, LIMITATIONS_PAGE), 'utf8'), datasets);

// Rewrite the source folder: one table per dataset and scope, the catalog, the filter table.
mkdirSync(SOURCE_OUT, { recursive: true });
for (const f of readdirSync(SOURCE_OUT)) {
  if (f.endsWith('.json') && f !== 'catalog.json' && f !== 'filters.json') rmSync(join(SOURCE_OUT, f));
}
for (const scope of ['zone', 'account']) {
  rmSync(join(SOURCE_OUT, scope), { recursive: true, force: true });
  mkdirSync(join(SOURCE_OUT, scope), { recursive: true });
}
for (const d of datasets) {
  // One field a line: a refresh's diff reads as the fields that changed.
  const head = JSON.stringify({ dataset: d.dataset, scope: d.scope, title: d.title, source: d.source, count: d.fields.length }, null, 2).slice(0, -2);
  const rows = d.fields.map((f) => `    ${JSON.stringify(f)}`).join(',\n');
  writeFileSync(join(SOURCE_OUT, d.scope, `${d.dataset}.json`), `${head},\n  "fields": [\n${rows}\n  ]\n}\n`);
}
const catalogPath = join(SOURCE_OUT, 'catalog.json');
const old = (existsSync(catalogPath) ? JSON.parse(readFileSync(catalogPath, 'utf8')) : {}) as { customFieldObjects?: string[] };
const catalog = {
  about:
    'The Logpush datasets of the public docs by scope (written by npm run datasets:refresh from a cloudflare-docs checkout, with the snapshot read), ' +
    "and the names in an http_requests job's fields that add the zone's custom log fields (kept by the refresh; edit by hand). " +
    'zone/ and account/ hold one field table per dataset, filters.json the Filters page and its filtering-limitations note. Run npm run datasets after any change.',
  snapshot,
  datasets: {
    zone: datasets.filter((d) => d.scope === 'zone').map((d) => d.dataset),
    account: datasets.filter((d) => d.scope === 'account').map((d) => d.dataset),
  },
  customFieldObjects: old.customFieldObjects ?? [],
};
writeFileSync(catalogPath, `${JSON.stringify(catalog, null, 2)}\n`);
writeFileSync(
  join(SOURCE_OUT, 'filters.json'),
  `${JSON.stringify({
    source: { repo: DOCS_REPO, path: FILTERS_PAGE, revision: revisionOf(FILTERS_PAGE) },
    limitationsSource: { repo: DOCS_REPO, path: LIMITATIONS_PAGE, revision: revisionOf(LIMITATIONS_PAGE) },
    ...filters,
    limitations,
  }, null, 2)}\n`,
);
const count = (s: string) => datasets.filter((d) => d.scope === s).length;
console.log(`wrote ${datasets.length} source tables (${count('zone')} zone, ${count('account')} account), catalog.json and filters.json; now run npm run datasets`);
