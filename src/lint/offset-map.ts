/**
 * Where each UTF-16 unit of a decoded string came from in the file: an escape (`\"`, `\u00e9`), a
 * heredoc's stripped indentation or an interpolation stood in for by a placeholder decode to fewer or
 * more units than they take in the file, so diagnostics found in the decoded text are mapped back unit by
 * unit rather than by adding an offset.
 * @module
 */
import type { Range } from '../diagnostics/index.js';

/** The source span of every unit of a decoded text, and the offset just past its content. */
export class OffsetMap {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Decoded text built alongside the map. */
  text = '';
  /** Source offset just after the last unit (where an insertion at the end of the text goes). */
  after = 0;

  /** Append `decoded`, every unit of which came from the source span `[start, end)`. */
  push(decoded: string, start: number, end: number): void {
    for (let i = 0; i < decoded.length; i++) {
      this.starts.push(start);
      this.ends.push(end);
    }
    this.text += decoded;
    this.after = end;
  }

  /** Append text that was copied verbatim from the source starting at `start`. */
  pushVerbatim(decoded: string, start: number): void {
    for (let i = 0; i < decoded.length; i++) {
      this.starts.push(start + i);
      this.ends.push(start + i + 1);
    }
    this.text += decoded;
    this.after = start + decoded.length;
  }

  /** Append another map's units (its text and spans). */
  append(other: OffsetMap): void {
    for (let i = 0; i < other.text.length; i++) {
      this.starts.push(other.starts[i]!);
      this.ends.push(other.ends[i]!);
    }
    this.text += other.text;
    this.after = other.after;
  }

  get length(): number {
    return this.text.length;
  }

  /** Source span of unit `i`. */
  span(i: number): Range {
    return { start: this.starts[i]!, end: this.ends[i]! };
  }

  /** The source range a range of the decoded text covers (an empty range stays empty, at its place). */
  toSource(r: Range): Range {
    const n = this.starts.length;
    const at = (i: number) => (i >= n ? this.after : this.starts[Math.max(0, i)]!);
    const start = at(r.start);
    if (r.end <= r.start) return { start, end: start };
    return { start, end: this.ends[Math.min(r.end, n) - 1] ?? start };
  }

  /**
   * Like {@link toSource}, for an edit: undefined when the range cuts through a unit that came from a
   * longer source span at one end (half of an escape or a placeholder), where no source edit says the same.
   */
  editRange(r: Range): Range | undefined {
    const n = this.starts.length;
    if (r.start < 0 || r.end > n || r.end < r.start) return undefined;
    if (r.start < n && r.start > 0 && this.starts[r.start] === this.starts[r.start - 1]) return undefined;
    if (r.end > 0 && r.end < n && this.ends[r.end] === this.ends[r.end - 1]) return undefined;
    return this.toSource(r);
  }

  /** A map of a text copied verbatim from the source at `start`. */
  static verbatim(text: string, start: number): OffsetMap {
    const m = new OffsetMap();
    m.pushVerbatim(text, start);
    if (text.length === 0) m.after = start;
    return m;
  }
}
