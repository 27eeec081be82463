/** `rulekit hash-key`: its command line. @module */
import type { Command } from 'commander';
import { write } from './options.js';
import { loadPart } from '../../optional-parts.js';

export function register(program: Command): void {
  program.command('hash-key')
    .description('print the key_hash of an API key, for a --users file that keeps no key in clear')
    .argument('<key>', 'the API key')
    .action(async (key: string) => {
      // The users file is the server's: the key is hashed by the server's own code, an optional part.
      const { hashKey } = await loadPart(['server'], () => import('../../server/index.js'));
      write(hashKey(key) + '\n');
    });
}
