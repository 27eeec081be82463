/** Editor test inputs mark the cursor with `|` (`tcp.d|`): the text without it, and the offset. */
export function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  if (offset < 0 || marked.indexOf('|', offset + 1) >= 0) throw new Error(`mark the cursor once with | in ${JSON.stringify(marked)}`);
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}
