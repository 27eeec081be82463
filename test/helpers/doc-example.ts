/**
 * A page's shell example as written: the `$ rulekit …` command of the first fenced block after a heading
 * (its `\` continuations joined) and the output printed under it, so a test can run the command and hold
 * the page to what the CLI says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

export function docExample(page: string, heading: string): { args: string[]; output: string } {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const at = text.indexOf(heading);
  expect(at, `${page} has no "${heading}"`).toBeGreaterThan(0);
  const lines = /```\n([\s\S]*?)```/.exec(text.slice(at))![1]!.split('\n');
  let n = 0;
  let command = '';
  do command += lines[n]!.replace(/\\$/, ' ');
  while (lines[n++]!.endsWith('\\'));
  return { args: command.replace(/^\$ rulekit /, '').trim().split(/\s+/), output: lines.slice(n).join('\n') };
}
