/** What the completion, hover and signature-help functions answer: plain data, offsets as in the text. @module */
import type { ListCatalog, ListItems, Scheme, SchemeLiteral } from '../expression/index.js';

/** What a completion item names. */
export type CompletionKind = 'field' | 'operator' | 'list' | 'keyword' | 'value' | 'function' | 'key';

/** One completion proposal. */
export interface CompletionItem {
  /** What the list shows, and what is inserted when `insertText` is absent. */
  label: string;
  /** What the proposal names (an editor picks its icon from it). */
  kind: CompletionKind;
  /** A short line beside the label (a type, a signature). */
  detail?: string;
  /** Markdown shown beside the selected item. */
  documentation?: string;
  /** The text inserted for `[from, to)` when it differs from the label (`"US"` outside a string). */
  insertText?: string;
}

/** Proposals for one cursor position; `[from, to)` is the text an accepted item replaces. */
export interface CompletionResult {
  /** Start of the replaced text (UTF-16 offset). */
  from: number;
  /** End of the replaced text (exclusive); `from <= offset <= to`. */
  to: number;
  /** The proposals valid here, unfiltered by what is typed (editors filter as the user types). */
  items: CompletionItem[];
}

/** Hover text (markdown) for the token at `[from, to)`. */
export interface Hover {
  /** Start of the token hovered. */
  from: number;
  /** End of the token hovered (exclusive). */
  to: number;
  /** What the catalogs say about it, as markdown. */
  markdown: string;
}

/** The function call around the cursor: its signature, its parameters, the one being written. */
export interface SignatureHelp {
  /** The whole signature (`bit_slice(field: raw header, start_bit: Int, end_bit: Int) -> Int`). */
  label: string;
  /** Each parameter as written in the signature. */
  parameters: string[];
  /** Index into `parameters` of the argument at the cursor. */
  activeParameter: number;
  /** What the function does. */
  documentation?: string;
}

/** The same options, with the same meaning, as `compileExpression`'s. */
export interface ExpressionLanguageOptions {
  /** Field scheme (default: the network scheme). */
  scheme?: Scheme | SchemeLiteral;
  /** Lists by name without `$` (`'my_list'`), or a prebuilt catalog; their names are proposed after `in`. */
  lists?: ListItems | ListCatalog;
  /** Service token of the managed lists (default `svc`: `$svc.anonymizer`). */
  serviceToken?: string;
}

/** Options of the Logpush filter functions. */
export interface LogFilterLanguageOptions {
  /** The dataset the filter runs on (its fields are proposed); without one, the fields of every dataset. */
  dataset?: string;
}
