/**
 * `npm run chaos [-- --seconds N --seed S]`: the reference server under write load while its database
 * backends are terminated, PostgreSQL crashes and restarts, and its processes are killed and stopped at
 * random (test/server/chaos-run.ts). Prints the report; exits 1 when a write was lost, an answer said
 * "nothing was written" of a write that was, or a process exited on its own.
 */
import { parseArgs } from 'node:util';
import { runChaos } from '../test/server/chaos-run.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '180' }, seed: { type: 'string', default: String(Date.now() % 100_000) }, writers: { type: 'string', default: '2' } } });
const seconds = Number(values.seconds);
const seed = Number(values.seed);
if (!(seconds > 0) || !Number.isInteger(seed)) {
  process.stderr.write('usage: npm run chaos -- [--seconds N] [--seed S] [--writers W]\n');
  process.exit(2);
}
process.stdout.write(`chaos: ${seconds} s, seed ${seed}: two replicas on PostgreSQL, one on SQLite\n`);
const report = await runChaos({ seconds, seed, writersPerServer: Number(values.writers), say: (line) => process.stdout.write(`  ${line}\n`) });
const bad = report.lost.length + report.falseNothingWritten.length + report.unexpectedExits.length + report.badShutdowns.length;
process.stdout.write([
  `writes sent ${report.writesSent}, acknowledged ${report.acknowledged}, 503 nothing written ${report.unavailable}, 503 outcome unknown ${report.outcomeUnknown}, unanswered (server restarting) ${report.unanswered}`,
  `faults: ${Object.entries(report.faults).map(([k, v]) => `${k} ×${v}`).join(', ')}`,
  `acknowledged writes lost: ${report.lost.length}${report.lost.length ? ` (${report.lost.slice(0, 5).join(', ')})` : ''}`,
  `false "nothing written": ${report.falseNothingWritten.length}${report.falseNothingWritten.length ? ` (${report.falseNothingWritten.slice(0, 5).join(', ')})` : ''}`,
  `process exits not caused by the run: ${report.unexpectedExits.length}${report.unexpectedExits.length ? ` (${report.unexpectedExits.join('; ')})` : ''}`,
  `SIGTERM without exit 0 within 10 s: ${report.badShutdowns.length}${report.badShutdowns.length ? ` (${report.badShutdowns.join('; ')})` : ''}`,
  `other answers: ${report.otherAnswers.length}${report.otherAnswers.length ? ` (${[...new Set(report.otherAnswers)].slice(0, 5).join(', ')})` : ''}`,
  '',
].join('\n'));
process.exit(bad ? 1 : 0);
