/**
 * The editable table of sample packets: a column per field, a row per packet, the verdict (and the
 * deciding rule) at the end of each row. Cells are edited in place; the verdict cells are refreshed
 * without rebuilding the table, so typing keeps its focus.
 * @module
 */
import { NETWORK_FIELDS } from '../index.js';
import type { PacketOutcome } from './run.js';
import { h, fill } from './dom.js';

/** What the table edits (the state's `fields` and `packets`, changed in place). */
export interface PacketTableModel {
  fields: string[];
  packets: Record<string, string>[];
}

/** Width of a cell's input by the field's type, in characters (an IPv4 address fits). */
const CELL_SIZE: Readonly<Record<string, number>> = { Ip: 12, String: 6, Int: 5, Bool: 5 };

export class PacketTable {
  private readonly verdictCells: HTMLElement[] = [];

  constructor(
    private readonly root: HTMLElement,
    private model: PacketTableModel,
    private readonly changed: () => void,
  ) {
    this.render();
  }

  /** Rebuild the table (after a structural change: a row or column added or removed, a new state). */
  render(): void {
    const { fields, packets } = this.model;
    this.verdictCells.length = 0;
    const types = new Map(NETWORK_FIELDS.map((f) => [f.name, f.type] as const));
    const head = h(
      'tr',
      {},
      h('th', { class: 'num' }, '#'),
      ...fields.map((f) =>
        h('th', { title: types.get(f) ?? 'not a field of the network scheme' }, h('code', {}, f), ' ', h('button', { class: 'icon', title: `remove the ${f} column`, 'aria-label': `remove ${f}`, onclick: () => this.removeField(f) }, '×')),
      ),
      h('th', {}, 'verdict'),
    );
    const rows = packets.map((p, i) => {
      const verdict = h('td', { class: 'verdict', 'data-testid': `verdict-${i}` }, '…');
      this.verdictCells.push(verdict);
      return h(
        'tr',
        {},
        h('td', { class: 'num' }, h('button', { class: 'icon', title: 'remove this packet', 'aria-label': `remove packet ${i + 1}`, onclick: () => this.removeRow(i) }, '×'), String(i + 1)),
        ...fields.map((f) =>
          h(
            'td',
            {},
            h('input', {
              value: p[f] ?? '',
              'aria-label': `packet ${i + 1} ${f}`,
              size: String(CELL_SIZE[types.get(f) ?? 'String']),
              // The column may shrink (the input fills it), never below what the field's usual values need.
              style: `min-width: calc(${CELL_SIZE[types.get(f) ?? 'String']}ch + 0.4rem)`,
              spellcheck: 'false',
              oninput: (e: Event) => {
                p[f] = (e.target as HTMLInputElement).value;
                this.changed();
              },
            }),
          ),
        ),
        verdict,
      );
    });
    const fieldInput = h('input', { list: 'network-fields', placeholder: 'field, e.g. tcp.flags.syn', 'aria-label': 'field to add', spellcheck: 'false' });
    const addField = () => {
      const f = fieldInput.value.trim();
      if (f && !fields.includes(f)) {
        fields.push(f);
        this.render();
        this.changed();
      }
    };
    fieldInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') addField();
    });
    fill(
      this.root,
      h('datalist', { id: 'network-fields' }, ...NETWORK_FIELDS.map((f) => h('option', { value: f.name }, `${f.type}`))),
      h('table', { class: 'packets' }, h('thead', {}, head), h('tbody', {}, ...rows)),
      h(
        'div',
        { class: 'row-actions' },
        h('button', { onclick: () => this.addRow() }, '+ packet'),
        fieldInput,
        h('button', { onclick: addField }, '+ field'),
      ),
    );
  }

  /** Edit another model (a state loaded from a link). */
  setModel(model: PacketTableModel): void {
    this.model = model;
    this.render();
  }

  /** Show the outcomes (one per row, in order). */
  show(outcomes: PacketOutcome[]): void {
    outcomes.forEach((o, i) => {
      const cell = this.verdictCells[i];
      if (!cell) return;
      cell.className = `verdict verdict-${o.verdict.replace(' ', '-')}`;
      cell.title = o.verdict === 'error' ? 'the rules have errors: see the problems above' : '';
      // Two lines at most, neither wrapping: the verdict and the deciding rule, then what the rule is for.
      const by = o.decidedBy;
      fill(
        cell,
        h('span', { class: 'decision' }, h('strong', {}, o.verdict), by ? h('span', { class: 'rule' }, ` by #${by.index}${by.ref ? ` ${by.ref}` : ''}`) : o.verdict === 'allow' ? h('span', { class: 'rule' }, ' (no rule decided)') : undefined),
        by?.description ? h('span', { class: 'rule-description' }, ` (${by.description})`) : undefined,
        ...o.problems.map((p) => h('div', { class: 'problem' }, p)),
      );
    });
  }

  private addRow(): void {
    this.model.packets.push(Object.fromEntries(this.model.fields.map((f) => [f, ''])));
    this.render();
    this.changed();
  }

  private removeRow(i: number): void {
    this.model.packets.splice(i, 1);
    this.render();
    this.changed();
  }

  private removeField(f: string): void {
    this.model.fields.splice(this.model.fields.indexOf(f), 1);
    for (const p of this.model.packets) delete p[f];
    this.render();
    this.changed();
  }
}
