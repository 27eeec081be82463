/** Options several commands declare alike, with the argument checks commander leaves to the program. @module */
import { InvalidArgumentError, Option } from 'commander';
import { suggest } from '../../diagnostics/index.js';
import { PHASE_CATALOG, phaseInfo } from '../../ruleset/index.js';

/** What a command's action writes to standard output. */
export const write = (s: string): boolean => process.stdout.write(s);

/** `--format text|json`, text by default. */
export const formatOption = (): Option => new Option('--format <format>', 'output format').choices(['text', 'json']).default('text');

/** `--phase`: a phase of PHASE_CATALOG; a misspelt one names the nearest (commander's choices would list all 25 instead). */
export const phaseOption = (description: string): Option =>
  new Option('--phase <phase>', description).argParser((v: string) => {
    if (phaseInfo(v)) return v;
    const near = suggest(v, Object.keys(PHASE_CATALOG));
    throw new InvalidArgumentError(`unknown phase ${JSON.stringify(v)}${near ? `; did you mean ${near}?` : ` (phases: ${Object.keys(PHASE_CATALOG).join(', ')})`}`);
  });

/** `--max-warnings <n>`, ESLint's: a whole number, or -1 for no limit. */
export const maxWarningsOption = (): Option =>
  new Option('--max-warnings <n>', 'exit 1 when there are more than n warnings (-1: no limit, the default)').argParser((v: string) => {
    if (!/^(?:-1|\d+)$/.test(v)) throw new InvalidArgumentError('give a whole number of warnings (0 or more), or -1 for no limit');
    return Number(v);
  });

/** The argument of `--port`: 0..65535. */
export function portNumber(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('give a port number 0..65535');
  return Number(v);
}

/** The `--port` of a listening command: 0 means any free port, which the command prints. */
export const PORT_DESCRIPTION = 'port to listen on; 0: any free port (printed)';
