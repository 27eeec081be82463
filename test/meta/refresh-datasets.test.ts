/**
 * scripts/refresh-datasets.ts and its page readers (scripts/docs-pages.ts) on a small checkout written
 * here in the docs' page formats: a git-less checkout with `--revision`, pages of both scopes, the
 * Filters page and the limitations note; and the readers' refusals of pages they cannot read.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { needsTool } from '../helpers/tools.js';
import { DATASETS_PAGE_DIR, FILTERS_PAGE, LIMITATIONS_PAGE, parseDatasetPage, parseFiltersPage, parseLimitationsNote, plainText } from '../../scripts/docs-pages.js';

const ROOT = join(import.meta.dirname, '..', '..');
const page = (title: string, dataset: string, fields: string) =>
  `---\n# Code generator. DO NOT EDIT.\n\ntitle: ${title}\npcx_content_type: configuration\n---\n\nThe descriptions below detail the fields available for \`${dataset}\`.\n${fields}`;
const field = (name: string, type: string, text: string) => `\n## ${name}\n\nType: \`${type}\`\n\n${text}\n`;
const row = (name: string, op: string, cols: string, example: string) => `| ${name} | \`${op}\` | ${cols.split('').map((c) => (c === 'y' ? '✅' : '❌')).join(' | ')} | \`${example}\` |`;
const FILTERS = [
  '---\ntitle: Filters\n---\n',
  '| Name | Operator Notation | String | Int | Bool | Array | Object | Example |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  row('Equal', 'eq', 'yyynn', '{"key":"A","operator":"eq","value":"x"}'),
  row('Contains', 'contains', 'ynnyn', '{"key":"A","operator":"contains","value":"x"}'),
  row('Value is in a set of values', 'in', 'yynnn', '{"key":"N","operator":"in","value":[1]}'),
  '',
  'The filter field has limits of approximately 30 operators and 1000 bytes.',
].join('\n');
const NOTE = '---\n{}\n---\n\n:::note[Note]\n\nFiltering is not supported on the following data types: `objects`, `array[object]`.\n\nFor the Things dataset, the following fields are not supported: `Meta`, and `A`.\n:::\n';

function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-docs-'));
  const put = (p: string, text: string) => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  };
  put(`${DATASETS_PAGE_DIR}/zone/things.md`, page('Things', 'things', field('A', 'string', 'The <em>a</em> of it. <br />Possible values are <em>x</em> \\| <em>y</em>.\n\nMore.') + field('Meta', 'object', 'Pairs.') + field('Old (deprecated)', 'int', 'Gone; see [A](/a/).')));
  put(`${DATASETS_PAGE_DIR}/zone/index.mdx`, '---\ntitle: Zone\n---\n<DirectoryListing />\n');
  put(`${DATASETS_PAGE_DIR}/account/things.md`, page('Things', 'things', field('A', 'string', 'A.') + field('Meta', 'object', 'M.') + field('Zone', 'string', 'Z.')));
  put(`${DATASETS_PAGE_DIR}/account/flows.md`, page('Flows', 'flows', field('Rate', 'float', 'R.') + field('Hops', 'array[object]', 'H.') + field('T', 'int or string', 'T.')));
  put(FILTERS_PAGE, FILTERS);
  put(LIMITATIONS_PAGE, NOTE);
  return dir;
}

function refresh(args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'refresh-datasets.ts'), ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, out };
  } catch (e) {
    const err = e as { status: number; stderr: string };
    return { code: err.status, out: err.stderr };
  }
}

describe('npm run datasets:refresh', () => {
  it('writes one table per dataset and scope, the catalog and the filter table, each with the revision read', () => {
    const docs = checkout();
    const out = mkdtempSync(join(tmpdir(), 'rulekit-src-'));
    const r = refresh([docs, '--revision', 'a'.repeat(40), '--out', out]);
    expect(r.out).toContain('wrote 3 source tables (1 zone, 2 account)');
    expect(readdirSync(join(out, 'zone'))).toEqual(['things.json']);
    expect(readdirSync(join(out, 'account')).sort()).toEqual(['flows.json', 'things.json']);
    const zone = JSON.parse(readFileSync(join(out, 'zone', 'things.json'), 'utf8'));
    expect(zone).toMatchObject({ dataset: 'things', scope: 'zone', title: 'Things', count: 3, source: { path: `${DATASETS_PAGE_DIR}/zone/things.md`, revision: 'a'.repeat(40) } });
    expect(zone.fields).toEqual([
      { name: 'A', type: 'string', description: 'The a of it. Possible values are x | y.', deprecated: false },
      { name: 'Meta', type: 'object', description: 'Pairs.', deprecated: false },
      { name: 'Old', type: 'int', description: 'Gone; see A.', deprecated: true },
    ]);
    const catalog = JSON.parse(readFileSync(join(out, 'catalog.json'), 'utf8'));
    expect(catalog.datasets).toEqual({ zone: ['things'], account: ['flows', 'things'] });
    expect(catalog.snapshot.commit).toBe('a'.repeat(40));
    const filters = JSON.parse(readFileSync(join(out, 'filters.json'), 'utf8'));
    expect(filters.operators.map((o: { operator: string }) => o.operator)).toEqual(['eq', 'contains', 'in']);
    expect(filters.operators[1].types).toEqual({ String: true, Int: false, Bool: false, Array: true, Object: false });
    expect(filters.limits).toEqual({ operators: 30, bytes: 1000 });
    expect(filters.limitations).toEqual({ types: ['object', 'array[object]'], fields: { things: ['Meta', 'A'] } });
    expect(filters.source).toMatchObject({ path: FILTERS_PAGE, revision: 'a'.repeat(40) });
  });
  it('takes per-page revisions from a revisions.json beside the pages', () => {
    const docs = checkout();
    const out = mkdtempSync(join(tmpdir(), 'rulekit-src-'));
    const revs = { [`${DATASETS_PAGE_DIR}/zone/things.md`]: 'b'.repeat(40), _notes: { [`${DATASETS_PAGE_DIR}/zone/things.md`]: 'a note' } };
    writeFileSync(join(docs, 'revisions.json'), JSON.stringify(revs));
    expect(refresh([docs, '--revision', 'c'.repeat(40), '--out', out]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'zone', 'things.json'), 'utf8')).source).toMatchObject({ revision: 'b'.repeat(40), note: 'a note' });
    expect(JSON.parse(readFileSync(join(out, 'account', 'flows.json'), 'utf8')).source.revision).toBe('c'.repeat(40));
  });
  needsTool('git')('in a git checkout: each page\'s last commit, and HEAD with its date as the snapshot', () => {
    const docs = checkout();
    const git = (...a: string[]) => execFileSync('git', ['-C', docs, ...a], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_COMMITTER_DATE: '2026-03-12T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-12T10:00:00Z' } }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'pages');
    const first = git('rev-parse', 'HEAD');
    writeFileSync(join(docs, DATASETS_PAGE_DIR, 'account', 'flows.md'), page('Flows', 'flows', field('Rate', 'float', 'R.')));
    git('commit', '-qam', 'flows changed');
    const head = git('rev-parse', 'HEAD');
    const out = mkdtempSync(join(tmpdir(), 'rulekit-src-'));
    expect(refresh([docs, '--out', out]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'zone', 'things.json'), 'utf8')).source.revision).toBe(first);
    expect(JSON.parse(readFileSync(join(out, 'account', 'flows.json'), 'utf8')).source.revision).toBe(head);
    expect(JSON.parse(readFileSync(join(out, 'catalog.json'), 'utf8')).snapshot).toEqual({ repo: 'cloudflare/cloudflare-docs', commit: head, date: '2026-03-12T10:00:00+00:00' });
  });
  it('is a usage error (exit 2) without a checkout, without a revision outside git, or with an unknown option', () => {
    const out = mkdtempSync(join(tmpdir(), 'rulekit-src-'));
    expect(refresh(['--out', out]).code).toBe(2);
    expect(refresh([checkout(), '--out', out])).toMatchObject({ code: 2 });
    expect(refresh([checkout(), '--revision', 'x', '--out', out, '--frobnicate']).code).toBe(2);
  });
});

describe('the page readers refuse what they cannot read', () => {
  it('a field type the catalogs do not know, a field without a type, a page about another dataset', () => {
    expect(() => parseDatasetPage(page('T', 't', field('X', 'map[string]', 'x')), { scope: 'zone', file: 't.md' })).toThrow(/map\[string\].*do not know/);
    expect(() => parseDatasetPage(page('T', 't', '\n## X\n\nNo type here.\n'), { scope: 'zone', file: 't.md' })).toThrow(/no "Type/);
    expect(() => parseDatasetPage(page('T', 'u', field('X', 'int', 'x')), { scope: 'zone', file: 't.md' })).toThrow(/describes `u`/);
    expect(() => parseDatasetPage(page('T', 't', field('X', 'int', 'x') + field('X', 'int', 'y')), { scope: 'zone', file: 't.md' })).toThrow(/twice/);
  });
  it('an operator table without a type column or with a cell that is neither ✅ nor ❌', () => {
    expect(() => parseFiltersPage(FILTERS.replace('| Object ', '| Map '))).toThrow(/no "Object" column/);
    expect(() => parseFiltersPage(FILTERS.replace('| ✅ |', '| yes |'))).toThrow(/expected ✅ or ❌/);
    expect(() => parseFiltersPage(FILTERS.replace('approximately 30 operators', 'about 30 operators'))).toThrow(/approximately/);
  });
  it('a limitations note naming a dataset no page has', () => {
    expect(() => parseLimitationsNote(NOTE, [{ dataset: 'flows', title: 'Flows' }])).toThrow(/no dataset page titled "Things"/);
  });
  it('plain text keeps the words of links and lists, not their markup', () => {
    expect(plainText('See [the docs](/x/) for <em>a</em> \\| <em>b</em>.<br />Next')).toBe('See the docs for a | b. Next');
  });
});
