import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { docFiles } from '../../scripts/doc-files.js';

describe('docs/', () => {
  it('generated reference pages are current (run `npm run docs:gen` after changing a catalog)', () => {
    for (const [name, text] of Object.entries(docFiles())) expect(readFileSync(`docs/${name}`, 'utf8'), `docs/${name} is stale`).toBe(text);
  });

  it('relative links of docs/ and README.md reach a file, and a heading or anchor in it', () => {
    const pages = [...(readdirSync('docs', { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => join('docs', f)), 'README.md'];
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href!)) continue; // https:, mailto:: not ours to check
        const [path, anchor] = href!.split('#') as [string, string | undefined];
        const target = path ? join(dirname(page), path) : page;
        if (!existsSync(target)) broken.push(`${page}: ${href} (no file ${relative('.', target)})`);
        else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(`${page}: ${href} (no heading #${anchor} in ${target})`);
      }
    }
    expect(broken.join('\n'), 'broken links').toBe('');
  });
});

/** The anchors of a page as GitHub makes them: each heading's slug, and `<a id>`s. */
function anchors(page: string): Set<string> {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
  const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  return new Set([...[...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1]!)), ...[...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]!)]);
}
