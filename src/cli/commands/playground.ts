/** `rulekit playground`: its command line, and the listening errors it turns into usage errors. @module */
import type { Command } from 'commander';
import { UsageError } from '../io.js';
import { PORT_DESCRIPTION, portNumber, write } from './options.js';

export function register(program: Command): void {
  program.command('playground')
    .description('serve the playground (expressions, rulesets, Logpush filters and captures in the browser) and print its URL')
    .option('--port <n>', PORT_DESCRIPTION, portNumber, 8788)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .action(async (opts: { port: number; host: string }) => {
      const { startPlayground } = await import('../../playground-host/index.js');
      try {
        const { url } = await startPlayground(opts);
        write(`rulekit playground on ${url}\n  everything runs in the browser: captures dropped on the page are read there, not uploaded\n`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} is in use; give another with --port (0: any free port)`);
        if ((e as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL' || (e as NodeJS.ErrnoException).code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}: ${(e as Error).message}`);
        throw new UsageError((e as Error).message);
      }
    });
}
