/**
 * The editors of the page: CodeMirror views with the expression or JSON language, rulekit's linter,
 * completion and hover, and a callback on every change.
 * @module
 */
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, drawSelection, highlightActiveLine, lineNumbers, placeholder as placeholderText } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { lintKeymap } from '@codemirror/lint';
import { rulekitHighlighting } from './language.js';

/** Options of {@link createEditor}. */
export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  /** The language, linter, completion and hover of this editor. */
  extensions: Extension[];
  /** Called with the text after each change. */
  onChange?: (text: string) => void;
  /** Called when the cursor moves (offset). */
  onCursor?: (offset: number) => void;
  /** Line numbers (multi-line documents). */
  lines?: boolean;
  placeholder?: string;
  /** Accessible name of the editor. */
  label: string;
}

/** A CodeMirror view with the playground's common setup. */
export function createEditor(options: EditorOptions): EditorView {
  const extensions: Extension[] = [
    history(),
    drawSelection(),
    highlightActiveLine(),
    bracketMatching(),
    closeBrackets(),
    autocompletion({ activateOnTyping: true }),
    rulekitHighlighting,
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap]),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': options.label }),
    ...options.extensions,
  ];
  if (options.lines) extensions.push(lineNumbers());
  if (options.placeholder) extensions.push(placeholderText(options.placeholder));
  if (options.onChange || options.onCursor) {
    extensions.push(
      EditorView.updateListener.of((u) => {
        if (u.docChanged) options.onChange?.(u.state.doc.toString());
        if (u.selectionSet) options.onCursor?.(u.state.selection.main.head);
      }),
    );
  }
  return new EditorView({ state: EditorState.create({ doc: options.doc, extensions }), parent: options.parent });
}

/** Replace an editor's whole text (a state loaded from a link). */
export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
