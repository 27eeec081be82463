#!/usr/bin/env node
/**
 * The `rulekit` command line. Exit codes: 0 fine, 1 the input has errors, 2 a usage problem.
 *
 * Each command's module is imported by its action, so a run loads only the code of its own command (in
 * the bundle, its own chunks): `rulekit simulate` does not parse the YAML reader `rulekit lint` needs.
 * @module
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { suggest } from '../diagnostics/index.js';
import { PHASE_CATALOG, phaseInfo } from '../ruleset/index.js';
import { fileError, UsageError } from './io.js';
import { VERSION } from '../version.js';

const write = (s: string) => process.stdout.write(s);

/** Build the program (exported for tests). */
export function program(): Command {
  const p = new Command('rulekit')
    .description('Network rule expressions and Logpush filters: check, validate, simulate, export.')
    .version(VERSION)
    .showHelpAfterError('(rulekit --help for usage)')
    // Parser errors are thrown to main(), which exits 2 (usage) instead of commander's 1 (input has errors).
    .exitOverride();
  const format = () => new Option('--format <format>', 'output format').choices(['text', 'json']).default('text');
  // A phase of PHASE_CATALOG; a misspelt one names the nearest (commander's choices list all 25 instead).
  const phase = (description: string) =>
    new Option('--phase <phase>', description).argParser((v: string) => {
      if (phaseInfo(v)) return v;
      const near = suggest(v, Object.keys(PHASE_CATALOG));
      throw new InvalidArgumentError(`unknown phase ${JSON.stringify(v)}${near ? `; did you mean ${near}?` : ` (phases: ${Object.keys(PHASE_CATALOG).join(', ')})`}`);
    });
  const maxWarnings = () =>
    new Option('--max-warnings <n>', 'exit 1 when there are more than n warnings (-1: no limit, the default)').argParser((v: string) => {
      if (!/^(?:-1|\d+)$/.test(v)) throw new InvalidArgumentError('give a whole number of warnings (0 or more), or -1 for no limit');
      return Number(v);
    });

  p.command('demo')
    .description('check a sample ruleset and run sample packets through it, offline')
    .action(async () => {
      const { runDemo } = await import('./demo.js');
      process.exitCode = runDemo(write);
    });

  p.command('serve')
    .description('run the reference server of the configuration API (what npm start runs)')
    .option('--port <n>', 'port to listen on; 0: any free port (printed)', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('give a port number 0..65535');
      return Number(v);
    })
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'directory of the SQLite database (default ./.rulekit-data)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite: postgres://user:pass@host/db (or DATABASE_URL)')
    .option('--users <path>', 'JSON file of users: [{"email", "key" or "key_hash", "accounts": [...], "zones": [...]}] (or RULEKIT_USERS)')
    .option('--no-demo', 'no demo user, account and zone')
    .addOption(new Option('--log-level <level>', 'log level of the JSON request log on stdout').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .action(async (opts) => {
      const { serve } = await import('../server/index.js');
      const port = opts.port ?? (process.env.PORT ? Number(process.env.PORT) : undefined);
      try {
        await serve({ ...opts, port }, write);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${port ?? 8787} is in use; give another with --port (0: any free port)`);
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === undefined) throw new UsageError((e as Error).message);
        throw e;
      }
    });

  p.command('playground')
    .description('serve the playground (expressions, rulesets, Logpush filters and captures in the browser) and print its URL')
    .option('--port <n>', 'port to listen on; 0: any free port (printed)', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('give a port number 0..65535');
      return Number(v);
    }, 8788)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .action(async (opts: { port: number; host: string }) => {
      const { startPlayground } = await import('../playground-host/index.js');
      try {
        const { url } = await startPlayground(opts);
        write(`rulekit playground on ${url}\n  everything runs in the browser: captures dropped on the page are read there, not uploaded\n`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} is in use; give another with --port (0: any free port)`);
        if ((e as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL' || (e as NodeJS.ErrnoException).code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}: ${(e as Error).message}`);
        throw new UsageError((e as Error).message);
      }
    });

  p.command('lsp')
    .description('run the language server for editors on standard input and output (docs/guides/editor-setup.md)')
    .option('--stdio', 'talk over standard input and output (the default, and the only transport)')
    .option('--full-check-delay <ms>', 'quiet time after a change before ruleset analysis runs (default 300)', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('give a number of milliseconds');
      return Number(v);
    })
    .action(async (opts: { fullCheckDelay?: number }) => {
      const { runStdio } = await import('../lsp/index.js');
      runStdio({ fullCheckDelay: opts.fullCheckDelay });
    });

  p.command('hash-key')
    .description('print the key_hash of an API key, for a --users file that keeps no key in clear')
    .argument('<key>', 'the API key')
    .action(async (key: string) => {
      const { hashKey } = await import('../server/index.js');
      write(hashKey(key) + '\n');
    });

  p.command('check')
    .description('lint network rule expressions (arguments, or one per line of --file)')
    .argument('[expression...]', 'expressions to check')
    .option('-f, --file <path>', 'a file with one expression per line (# comments), - for stdin')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(phase('check with the fields and functions of this ruleset phase (http_request_firewall_custom: HTTP fields)'))
    .addOption(format())
    .addOption(maxWarnings())
    .option('--color', 'colour the diagnostics (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (expressions: string[], opts) => {
      if (!expressions.length && !opts.file) throw new UsageError('give an expression or --file');
      const { checkCommand } = await import('./commands.js');
      process.exitCode = await checkCommand(expressions, opts, write);
    });

  p.command('validate')
    .description('validate one request body: a ruleset (create or PUT), an array of rules or a Logpush job, in JSON or YAML (- for stdin); Terraform files: rulekit lint')
    .argument('<ruleset>', 'body file (.json, .yaml, .yml; by content for stdin)')
    .option('--update', 'the body is a PUT that replaces rules (needs only "rules")')
    .addOption(phase('phase of the stored ruleset, for --update bodies'))
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(new Option('--format <format>', 'output format; envelope: the service\'s response envelope').choices(['text', 'json', 'envelope']).default('text'))
    .addOption(maxWarnings())
    .option('--color', 'colour the diagnostics (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (path: string, opts) => {
      const { validateCommand } = await import('./commands.js');
      process.exitCode = await validateCommand(path, opts, write);
    });
  p.command('lint')
    .description('lint the rules where they live: Terraform (.tf), JSON or YAML bodies, .rules files; directories, globs, - for stdin')
    .argument('[paths...]', 'files, directories (walked for .tf .json .yaml .yml .rules), globs, or - (default: .)')
    .addOption(new Option('--kind <kind>', 'read every input as this kind (default: by extension, else by content)').choices(['terraform', 'json', 'yaml', 'rules']))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'sarif', 'github', 'junit']).default('text'))
    .addOption(new Option('--max-severity <severity>', 'exit 1 on findings at or above this severity (default: error, or the config\'s maxSeverity)').choices(['error', 'warning', 'info', 'hint']))
    .addOption(maxWarnings())
    .option('--quiet', 'report only the findings that fail the run (errors, unless --max-severity says otherwise)')
    .option('--fix', 'apply the safe fixes in place and print what changed')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--scheme <path>', 'JSON file of the field scheme: {"field.name": "Type", ...}')
    .option('--service-token <token>', 'service token of the managed lists (default svc)')
    .option('--config <path>', 'config file (default: rulekit.config.json in this directory or above)')
    .option('--no-config', 'read no config file')
    .option('--exclude <pattern...>', '.gitignore-style patterns of paths to skip')
    .option('--severity <code=level...>', 'severity of a code: off, info, warn or error (after the config)')
    .option('--stdin-filename <name>', 'name (and so kind) of standard input in reports')
    .addOption(phase('phase of rules whose file names none (a bare array of rules, a PUT body, a .rules file); resources and bodies with a phase keep theirs'))
    .option('--color', 'colour the text report (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .addHelpText('after', [
      '',
      'Suppressions: a comment line "# rulekit-disable-next-line CODE, CODE -- reason" (also // in Terraform)',
      'suppresses those codes (no codes: all) on the next line; in JSON, the config\'s "ignore":',
      '[{"file": "<glob>", "pointer": "/rules/0/expression", "code": "<code>"}]. Unused ones are reported.',
      'Exit codes: 0 clean, 1 findings at or above --max-severity or past --max-warnings, 2 usage.',
    ].join('\n'))
    .action(async (paths: string[], opts) => {
      const { lintCommand } = await import('./lint.js');
      process.exitCode = await lintCommand(paths, opts, write);
    });

  p.command('test')
    .description('run rule unit tests: packets, captures and log lines with their expected outcome (*.ruletest.yaml|yml|json)')
    .argument('[files...]', 'test files, or directories walked for *.ruletest.yaml, *.ruletest.yml, *.ruletest.json (default: .)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit', 'github']).default('text'))
    .option('--verbose', 'text: the trace of passing cases too')
    .option('--no-times', 'json, junit: leave out durations (stable reports)')
    .option('--color', 'colour the text report (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (files: string[], opts) => {
      const { testCommand } = await import('./ruletest.js');
      process.exitCode = await testCommand(files, opts, write);
    });

  p.command('logfilter')
    .description('dry-run a Logpush filter on sample log lines: which lines would be pushed, and why')
    .argument('<filter>', 'filter document ({"where": …}) or Logpush job body (JSON); - for stdin')
    .argument('<lines>', 'log lines, one JSON object a line (NDJSON), gzip-compressed or not; - for stdin')
    .option('--dataset <name>', 'the dataset the filter is checked against (default: the job\'s, else http_requests)')
    .option('--explain', 'why each line was kept or dropped: the clause that decided, and every clause')
    .addOption(new Option('--format <format>', 'output format; ndjson: the kept lines as they are').choices(['text', 'json', 'ndjson']).default('text'))
    .option('--color', 'colour the filter diagnostics (on stderr; default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (filter: string, lines: string, opts) => {
      const { logfilterCommand } = await import('./ruletest.js');
      process.exitCode = await logfilterCommand(filter, lines, opts, write);
    });

  p.command('analyze')
    .description('find rules that can never decide (shadowed, redundant) and expressions never or always true, with witness packets')
    .argument('<ruleset>', 'ruleset JSON file (a create body, {"rules": [...]}, or an array of rules); - for stdin')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]} (lists not given are unknown, not empty)')
    .option('--witness-pcap <path>', 'write the witness packets as a pcap file, to replay in tshark, tcpreplay or rulekit simulate')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'sarif']).default('text'))
    .addOption(maxWarnings())
    .option('--color', 'colour the findings (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (path: string, opts) => {
      const { analyzeCommand } = await import('./analyze.js');
      process.exitCode = await analyzeCommand(path, opts, write);
    });
  p.command('query')
    .description('run a Logpush filter over stored log lines on DuckDB (NDJSON, .gz, Parquet; globs, s3://) or a ClickHouse server')
    .argument('<files...>', 'log files or globs (with --clickhouse-url: a table name)')
    .requiredOption('--filter <path>', 'the filter: a JSON document {"where": …}, or a job body with "filter"')
    .option('--dataset <name>', 'dataset of the lines', 'http_requests')
    .option('--count', 'print only the number of matching lines')
    .option('--limit <n>', 'matching lines shown in text and json output', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('give a whole number of lines');
      return Number(v);
    }, 10)
    .addOption(new Option('--format <format>', 'text (sample and counts), ndjson (every matching line), json').choices(['text', 'ndjson', 'json']).default('text'))
    .addOption(new Option('--scope <scope>', 'the job\'s scope, for a dataset both scopes offer with different fields (firewall_events)').choices(['zone', 'account']))
    .option('--clickhouse-url <url>', 'run on a ClickHouse server (http://host:8123; user and password in the URL or CLICKHOUSE_USER, CLICKHOUSE_PASSWORD); the argument is a table name')
    .action(async (files: string[], opts) => {
      const { queryCommand } = await import('./query.js');
      process.exitCode = await queryCommand(files, opts, write);
    });
  p.command('simulate')
    .description('run packets (pcap, pcapng or NDJSON; - for stdin) through a ruleset, or HTTP requests (HAR or NDJSON) through an HTTP-phase ruleset, and summarise per rule')
    .argument('<ruleset>', 'ruleset JSON file (a create body, or {"rules": [...]}); its phase says whether it reads packets or HTTP requests')
    .argument('<input>', 'capture (.pcap/.pcapng) or NDJSON of packet objects; for an HTTP phase a HAR file or NDJSON request objects; - for stdin')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--geoip <path>', 'country/ASN table: CSV of cidr,country,asn or a MaxMind .mmdb')
    .option('--colo <name>', 'data center name for cf.colo.name')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .option('--examples <n>', 'example packets per rule in the summary', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) > 1000) throw new InvalidArgumentError('give a whole number of examples, 0..1000');
      return v;
    }, '3')
    .option('--no-progress', 'no progress bar')
    .option('--stats', 'print packets/s and peak memory to stderr')
    .option('--threads <n>', 'worker threads for a pcap file (default: up to 2 for files of 96 MB and more; 0: this thread only)', (v: string) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > 64) throw new UsageError(`--threads takes a whole number 0..64, not ${JSON.stringify(v)}`);
      return n;
    })
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'ndjson']).default('text'))
    .option('--ndjson-diagnostics', 'with --format ndjson: diagnostics also as {"diagnostic": …} lines on stdout, after the summary line')
    .addOption(new Option('--engine <engine>', 'run the ruleset as SQL on DuckDB or ClickHouse embedded (chdb) over flow files: NDJSON packet objects or Parquet, globs allowed').choices(['duckdb', 'clickhouse']))
    .option('--clickhouse-url <url>', 'with --engine clickhouse: a ClickHouse server (http://host:8123; user and password in the URL or CLICKHOUSE_USER, CLICKHOUSE_PASSWORD); the input is a table name')
    .option('--color', 'colour the ruleset diagnostics (on stderr; default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (ruleset: string, input: string, opts) => {
      const { simulateCommand } = await import('./simulate.js');
      process.exitCode = await simulateCommand(ruleset, input, opts, write);
    });

  p.command('export')
    .description('translate an expression to another tool\'s filter language')
    .argument('<expression>', 'network rule expression')
    .option('--wireshark', 'as a Wireshark display filter (tshark -Y)')
    .option('--lists <path>', 'JSON file of lists, to export $lists as sets')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .action(async (expression: string, opts) => {
      const { exportCommand } = await import('./export.js');
      process.exitCode = await exportCommand(expression, opts, write);
    });
  return p;
}

/** Run the CLI with process arguments. */
export async function main(argv: string[] = process.argv): Promise<void> {
  // `rulekit simulate … | head`: a closed pipe ends the program quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander printed its message already; --help and --version end with exit code 0.
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof UsageError || (e as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`rulekit: ${(e as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    // Any other file system error on a named file (raced with the checks before it): one line too.
    const fsError = e as NodeJS.ErrnoException;
    if (typeof fsError?.code === 'string' && /^E[A-Z]+$/.test(fsError.code) && typeof fsError.path === 'string') {
      process.stderr.write(`rulekit: ${fileError(fsError.path, e).message}\n`);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
}

await main();
