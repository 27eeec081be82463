/** What the per-format extractors produce and the checker consumes. @module */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type { ValueSlot } from '../ruleset/index.js';
import type { ListItems } from '../expression/index.js';
import type { Encoder } from './encode.js';
import type { Interpolation } from './hcl.js';
import type { OffsetMap } from './offset-map.js';

/** The input kinds lint reads. */
export type InputKind = 'terraform' | 'json' | 'yaml' | 'rules';

/** An expression or a Logpush filter found in a file, as decoded text with the way back to the file. */
export interface TextItem {
  kind: 'expression' | 'filter';
  /** Where it is, for people: `cloudflare_ruleset.fw.rules[1].expression`, `line 3`, `/rules/0/expression`. */
  label: string;
  /** The decoded text (interpolations left out) and the file span of each of its units. */
  map: OffsetMap;
  /** Terraform interpolations, to be stood in for (positions in the decoded text). */
  holes: Interpolation[];
  /** Re-encodes a fix's text for the literal; absent: fixes are shown, never applied. */
  encoder?: Encoder;
  /** The whole literal in the file (for diagnostics about the whole value). */
  range: Range;
  /** Ruleset phase, when known. */
  phase?: string;
  /**
   * A value expression of a rule (a rewrite's `expression`, `counting_expression`, a credential check's
   * expression): checked as a value of that kind, not as a filter. Absent: a rule's filter `expression`.
   */
  slot?: ValueSlot;
  /** Logpush dataset, when known. */
  dataset?: string;
  /** Logpush job scope (the resource's `zone_id` or `account_id`), when known. */
  scope?: 'zone' | 'account';
  /**
   * A filter given as HCL (`jsonencode({...})`): its JSON text was built by lint, each token mapped to
   * the HCL value it came from; fixes replace whole values with `hclValue(newJson)`.
   */
  /** Where hcl2json puts the same value (`['resource', type, name, 0, 'rules', 1, 'expression']`), to check the decoding against. */
  source?: (string | number)[];
  synthetic?: { replace: (range: Range, json: string) => { range: Range; newText: string } | undefined };
}

/** A JSON or YAML request body: a ruleset (create or PUT), an array of rules, or a Logpush job. */
export interface BodyItem {
  kind: 'ruleset' | 'job';
  label: string;
  /** The body as a value (a bare rule array is given as `{rules: [...]}`). */
  value: unknown;
  /** `update`: a PUT body or a bare array (only rules). */
  operation: 'create' | 'update';
  /** Phase of the stored ruleset an update body goes to (`rulekit validate --phase`); absent: unknown. */
  phase?: string;
  /** A pointer prefix to remove from reported pointers (`/rules` for a bare array). */
  pointerPrefix: string;
  /** The file pointer of a pointer into `value`, where the body is built from the file (a tool's layout); overrides `pointerPrefix`. */
  showPointer?: (pointer: string) => string;
  /** File range of the value (or key) at a pointer of `value`. */
  locate(pointer: string, part: 'value' | 'key'): Range | undefined;
  /** The decoded string at a pointer of `value`, with its map and encoder. */
  stringAt(pointer: string): { map: OffsetMap; encoder?: Encoder } | undefined;
  /** Diagnostics of the body's own text (duplicate keys...), already in file coordinates. */
  textDiagnostics?: Diagnostic[];
}

/** A diagnostic in a file's coordinates. */
export interface LintDiagnostic extends Diagnostic {
  /** Which value of the file it is about (`cloudflare_ruleset.fw.rules[0].expression`, `line 3`). */
  where?: string;
  /** True when `--fix` applies its fix: a safe fix whose edits all map into the file. */
  autofix?: boolean;
}

/** What an extractor returns for one file. */
export interface Extracted {
  kind: InputKind;
  items: (TextItem | BodyItem)[];
  /** Problems of the file itself (not valid HCL, unrecognized shape, values not checked), in file coordinates. */
  diagnostics: LintDiagnostic[];
  /** Lists the file declares (an octorules file's `lists:`), beside those the caller gives. */
  lists?: ListItems;
}
