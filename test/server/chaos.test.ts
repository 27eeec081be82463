/**
 * The chaos run (test/server/chaos-run.ts, `npm run chaos` for minutes) for half a minute in CI, each kind
 * of fault in turn: terminated backends, a PostgreSQL crash and restart, SIGKILL and SIGTERM of the
 * servers (two replicas on PostgreSQL, one on SQLite) under write load. No acknowledged write is lost, no
 * "nothing was written" answer was written, no process exits on its own, every SIGTERM exits 0 in time.
 */
import { expect } from 'vitest';
import { describeNeedsTool, needsTool } from '../helpers/tools.js';
import { runChaos } from './chaos-run.js';

const it = needsTool('postgres');

describeNeedsTool('postgres')('a chaos run', () => {
  it('loses no acknowledged write and tells no lie, through every kind of fault', async () => {
    const report = await runChaos({ seconds: 30, seed: 42, inTurn: true });
    expect(Object.keys(report.faults).sort()).toEqual(expect.arrayContaining(['PostgreSQL crashed and restarted', 'backends terminated', expect.stringMatching(/^SIGKILL /), expect.stringMatching(/^SIGTERM /)]));
    expect(report.faults['SIGKILL sqlite'] ?? 0).toBeGreaterThan(0);
    expect(report.acknowledged).toBeGreaterThan(500);
    expect(report.lost).toEqual([]);
    expect(report.falseNothingWritten).toEqual([]);
    expect(report.unexpectedExits).toEqual([]);
    expect(report.badShutdowns).toEqual([]);
    expect(report.otherAnswers).toEqual([]);
  }, 240_000);
});
