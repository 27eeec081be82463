/**
 * The reports of `rulekit logfilter` in `--format text` and `--format json`, written in memory bounded
 * whatever the number of lines: a line's row leaves memory soon after the line is read, and the summary
 * is made of counters. Text rows are printed as they come; the JSON document, whose counts come before
 * its lines, is written whole at the end from rows spooled (to a temporary file past a few MB).
 * @module
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from './io.js';

/** Characters a report holds before writing them (text) or spilling them to disk (JSON). */
const BUFFERED = 1 << 20;

/** The counters every format keeps. */
export interface LogfilterCounts {
  lines: number;
  kept: number;
  dropped: number;
  invalid: number;
}

/**
 * Text rows, `line N  kept|dropped  …` and the explanation tree under each. The line number column is as
 * wide as the last line number: while the rows fit in {@link HEAD_ROWS} they are held until the end so that
 * width is known (short inputs, the usual dry-run, read as they always have); past that they are printed as
 * they come, the column {@link STREAMED_WIDTH} wide (wider only past ten million lines).
 */
export class TextReport {
  private held: { line: number; kept: boolean; shown: string; tree: string[] }[] = [];
  private heldChars = 0;
  /** The column's width once the rows are streamed. */
  private width = 0;
  private out = '';

  constructor(private readonly header: string, private readonly write: (s: string) => void) {}

  row(line: number, kept: boolean, shown: string, tree: string[]): void {
    if (this.width === 0) {
      this.held.push({ line, kept, shown, tree });
      this.heldChars += shown.length + tree.reduce((n, l) => n + l.length, 0);
      if (this.held.length < HEAD_ROWS && this.heldChars < BUFFERED) return;
      this.width = Math.max(STREAMED_WIDTH, String(line).length);
      this.out = this.header + '\n';
      for (const r of this.held) this.render(r.line, r.kept, r.shown, r.tree);
      this.held = [];
    } else this.render(line, kept, shown, tree);
    if (this.out.length >= BUFFERED >> 4) {
      this.write(this.out);
      this.out = '';
    }
  }

  end(counts: LogfilterCounts): void {
    if (this.width === 0) {
      this.width = String(this.held.at(-1)?.line ?? 1).length;
      this.out = this.header + '\n';
      for (const r of this.held) this.render(r.line, r.kept, r.shown, r.tree);
      this.held = [];
    }
    this.out += `${counts.lines} line(s): ${counts.kept} kept (would be pushed), ${counts.dropped} dropped${counts.invalid ? `, ${counts.invalid} not a log line` : ''}\n`;
    this.write(this.out);
    this.out = '';
  }

  private render(line: number, kept: boolean, shown: string, tree: string[]): void {
    this.out += `line ${String(line).padStart(this.width)}  ${kept ? 'kept   ' : 'dropped'}  ${shown}\n`;
    if (tree.length) {
      const indent = ' '.repeat(this.width + 16);
      for (const l of tree) this.out += indent + l + '\n';
    }
  }
}

/** Rows held to learn the line number column's width before the text report is streamed. */
export const HEAD_ROWS = 4096;
/** The line number column's width once the text report is streamed. */
export const STREAMED_WIDTH = 7;

/**
 * The JSON report: `{dataset, filter, gzip, counts, lines: […], invalid: […]}` as `JSON.stringify(…, null, 2)`
 * writes it, byte for byte, with each line's entry serialised as it is read and spooled (see {@link Spool})
 * rather than kept as an object.
 */
export class JsonReport {
  private readonly lines = new Spool();
  private readonly invalid = new Spool();

  constructor(private readonly write: (s: string) => void) {}

  line(entry: object): void {
    this.lines.add(arrayItem(entry));
  }

  /** A line's entry without --explain, `{line, kept}`, written out (what `arrayItem` gives, without its cost a line). */
  verdict(line: number, kept: boolean): void {
    this.lines.add(`    {\n      "line": ${line},\n      "kept": ${kept}\n    }`);
  }

  invalidLine(line: number, message: string): void {
    this.invalid.add(arrayItem({ line, message }));
  }

  /** Write the document; `pause` is awaited between chunks of the spooled lines (the output's backpressure). */
  async end(head: { dataset: string; filter: string | null; gzip: boolean; counts: LogfilterCounts }, pause: () => Promise<void>): Promise<void> {
    let s = '{';
    for (const [k, v] of Object.entries(head)) s += `\n  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replace(/\n/g, '\n  ')},`;
    this.write(s + '\n  "lines": ');
    await this.lines.drain(this.write, pause);
    this.write(',\n  "invalid": ');
    await this.invalid.drain(this.write, pause);
    this.write('\n}\n');
  }

  /** Remove the spool files (also after an error). */
  dispose(): void {
    this.lines.dispose();
    this.invalid.dispose();
  }
}

/** An array element at the report's second level, as `JSON.stringify(…, null, 2)` indents it (no string holds an LF). */
function arrayItem(v: object): string {
  return '    ' + JSON.stringify(v, null, 2).replace(/\n/g, '\n    ');
}

/**
 * The items of a JSON array, written at the end as `[]` or `[\n item,\n item\n  ]`: held in memory up to
 * {@link BUFFERED} characters, then appended to a temporary file removed when drained or disposed.
 */
export class Spool {
  private held: string[] = [];
  private heldChars = 0;
  private count = 0;
  private dir: string | undefined;
  private fd: number | undefined;

  add(item: string): void {
    this.held.push(this.count++ === 0 ? '\n' + item : ',\n' + item);
    this.heldChars += item.length;
    if (this.heldChars >= BUFFERED) this.spill();
  }

  async drain(write: (s: string) => void, pause: () => Promise<void>): Promise<void> {
    if (this.count === 0) {
      write('[]');
      return;
    }
    write('[');
    if (this.fd !== undefined) {
      this.spill();
      const buf = Buffer.allocUnsafe(BUFFERED);
      const decoder = new StringDecoder('utf8');
      for (let at = 0, n; (n = readSync(this.fd, buf, 0, buf.length, at)) > 0; at += n) {
        write(decoder.write(buf.subarray(0, n)));
        await pause();
      }
      write(decoder.end());
      this.dispose();
    } else write(this.held.join(''));
    this.held = [];
    write('\n  ]');
  }

  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.fd = this.dir = undefined;
  }

  private spill(): void {
    try {
      if (this.fd === undefined) {
        this.dir = mkdtempSync(join(tmpdir(), 'rulekit-logfilter-'));
        this.fd = openSync(join(this.dir, 'items.json'), 'w+');
      }
      writeSync(this.fd, this.held.join(''));
    } catch (e) {
      throw new UsageError(`the JSON report's lines cannot be spooled to ${tmpdir()} (${(e as Error).message}); set TMPDIR to a writable directory`);
    }
    this.held = [];
    this.heldChars = 0;
  }
}
