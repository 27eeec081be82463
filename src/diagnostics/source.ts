/**
 * Offsets to line/column. Convention (as cel-go's `common/location.go`): lines are 1-based, columns are
 * 0-based UTF-16 code units; the rendered `file:line:col` form shows columns 1-based like compilers do.
 * @module
 */

/** A position: 1-based line, 0-based UTF-16 column. */
export interface LineColumn {
  line: number;
  column: number;
}

/** A text with its line starts computed once. */
export class SourceText {
  readonly text: string;
  private readonly lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
  }

  /** Line and column of an offset (clamped into the text). */
  position(offset: number): LineColumn {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: o - this.lineStarts[lo]! };
  }

  /** The text of a 1-based line, without its line terminator. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1] ?? this.text.length;
    const next = this.lineStarts[line];
    let end = next === undefined ? this.text.length : next;
    while (end > start && (this.text.charCodeAt(end - 1) === 10 || this.text.charCodeAt(end - 1) === 13)) end--;
    return this.text.slice(start, end);
  }
}
