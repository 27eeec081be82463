/**
 * Wildcard patterns (the `wildcard` / `strict wildcard` operators and `wildcard_replace`): `*` is any run
 * of characters, `\*` a literal star, `\\` a literal backslash; `**` and any other backslash are errors.
 * One reader for both users, which differ only in the regex they build around the literal runs.
 * @module
 */

/** The literal runs of a wildcard pattern, split at each `*` (one more run than stars), or a problem. */
export function wildcardLiterals(pattern: string): string[] | { problem: string } {
  const runs: string[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === '*' || n === '\\') {
        literal += n;
        i++;
        continue;
      }
      return { problem: n === undefined ? 'it ends with a lone backslash' : `\\${n} is not an escape; only \\* and \\\\ are` };
    }
    if (c === '*') {
      if (pattern[i + 1] === '*') return { problem: '** is not allowed; one * already matches any run of characters' };
      runs.push(literal);
      literal = '';
      continue;
    }
    literal += c;
  }
  runs.push(literal);
  return runs;
}
