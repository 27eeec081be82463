#!/usr/bin/env node
/**
 * The `rulekit` command line (src/cli/run.ts), started. The bundle starts it through src/cli/launch.ts.
 * @module
 */
import { main } from './run.js';

export { main, program } from './run.js';

await main();
