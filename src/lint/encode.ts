/**
 * Writing replacement text back into the literal it came from. A fix is found in the decoded text (an
 * expression, a filter); its new text must be re-encoded for the string it lands in so that the file stays
 * valid and means what the fix says: quoted HCL strings escape `"`, `\` and `${`, heredocs only `${`,
 * JSON strings their quotes and control characters, YAML scalars by their style. An encoder answers
 * undefined when the text cannot be written there safely (a newline into a one-line literal, say); such a
 * fix is reported but not applied.
 * @module
 */

/** Re-encodes decoded text for one kind of literal; undefined when it cannot be written there. */
export type Encoder = (decoded: string) => string | undefined;

/** Text copied as it is (a line of a `.rules` file): anything but a line break. */
export const rawLine: Encoder = (s) => (/[\r\n]/.test(s) ? undefined : s);

/** HCL template sequences that would start an interpolation or directive: doubled to stay literal. */
const templateEscape = (s: string) => s.replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');

/** Inside a quoted HCL string `"…"`. */
export const hclQuoted: Encoder = (s) =>
  templateEscape(
    s.replace(/[\\"\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!),
  );

/** Inside a heredoc: no escapes but the template ones; one line only (indentation would have to follow). */
export const hclHeredoc: Encoder = (s) => (/[\r\n]/.test(s) ? undefined : templateEscape(s));

/** Inside a JSON string `"…"` (also a YAML double-quoted scalar, whose escapes include JSON's). */
export const jsonString: Encoder = (s) => JSON.stringify(s).slice(1, -1);

/** Inside a YAML single-quoted scalar: `'` doubled; one line. */
export const yamlSingle: Encoder = (s) => (/[\r\n]/.test(s) ? undefined : s.replace(/'/g, "''"));

/** Inside a YAML literal block (`|`): one line, no tab that could be read as indentation. */
export const yamlBlock: Encoder = (s) => (/[\r\n]/.test(s) ? undefined : s);

/**
 * Inside a YAML plain scalar, not at its start or end: nothing that would end the scalar or start a
 * comment (`: `, ` #`), no line break, no tab.
 */
export const yamlPlain: Encoder = (s) => (/[\r\n\t]|: |:$| #|^#/.test(s) ? undefined : s);

/** Encode through two layers: the text of an inner literal that itself sits in an outer one. */
export function chain(inner: Encoder, outer: Encoder): Encoder {
  return (s) => {
    const i = inner(s);
    return i === undefined ? undefined : outer(i);
  };
}
