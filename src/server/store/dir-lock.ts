/**
 * One process per SQLite data directory. The SQLite store batches the writes of many requests into one
 * transaction and keeps records it wrote in memory for later reads: a second process writing the same
 * file would be answered from the first one's stale memory. So the directory is locked by a file,
 * `rulekit.lock`, holding the owner's pid, created exclusively; a lock whose process is gone (killed
 * with SIGKILL, the machine restarted) is taken over. Several processes on one database is what the
 * PostgreSQL store is for.
 * @module
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The data directory is held by another live process. */
export class DataDirLockedError extends Error {
  constructor(readonly dir: string, readonly pid: number) {
    super(`the data directory ${dir} is in use by rulekit process ${pid}: one process per SQLite data directory. Stop that one, give another --data, or use PostgreSQL (--database-url) for several processes`);
    this.name = 'DataDirLockedError';
  }
}

/** A held lock; `release` removes its file (once). */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** Whether a process with this pid is alive (signal 0 checks without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lock `dir` for this process, or throw {@link DataDirLockedError} naming the process that holds it (this
 * process too: two stores of one process on one directory are refused as well).
 */
export function lockDataDir(dir: string): DataDirLock {
  const file = join(dir, 'rulekit.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let held = true;
      return {
        file,
        release() {
          if (!held) return;
          held = false;
          // Only our own file: a lock taken over after ours was judged stale is not ours to remove.
          if (holder(file) === process.pid) unlinkSync(file);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = holder(file);
    if (pid !== undefined && (pid === process.pid || alive(pid))) throw new DataDirLockedError(dir, pid);
    // A file without a pid is one a process starting this moment has not written yet: wait for it once;
    // still empty after that, it was left by a process that died between creating and writing it.
    if (pid === undefined && attempt === 0) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      continue;
    }
    {
      try {
        unlinkSync(file);
      } catch {
        // Another process removed it first; the next attempt sees who holds it now.
      }
    }
  }
  throw new DataDirLockedError(dir, holder(file) ?? 0);
}
