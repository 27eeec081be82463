/**
 * A file's text at a git revision, for the diff lenses: `git show REV:./name` run in the file's folder,
 * asynchronously (the server goes on answering meanwhile). Git missing, a folder outside a repository, a
 * file the revision lacks: undefined text and git's reason, never an exception.
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** The text, or why there is none (git's first line of error, or that git is not installed). */
export type GitText = { text: string } | { reason: string };

/** Revisions as `rulekit diff --git` takes them: no option, no space, no colon. */
export const REVISION = /^[^-\s][^\s:]*$/;

export function gitShow(rev: string, path: string): Promise<GitText> {
  if (!REVISION.test(rev)) return Promise.resolve({ reason: `rulekit.diff.base is a revision (a commit, a branch, HEAD~1), not ${JSON.stringify(rev)}` });
  // A missing working directory fails the spawn with ENOENT too: said here, not taken for a missing git.
  if (!existsSync(dirname(path))) return Promise.resolve({ reason: `${dirname(path)} does not exist` });
  return new Promise((resolve) => {
    execFile('git', ['show', `${rev}:./${basename(path)}`], { cwd: dirname(path), encoding: 'utf8', maxBuffer: 256 << 20, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve({ text: stdout });
      const code = (error as NodeJS.ErrnoException).code;
      resolve({ reason: code === 'ENOENT' ? 'git is not installed (or not on the PATH)' : String(stderr || error.message).trim().split('\n')[0]! });
    });
  });
}
