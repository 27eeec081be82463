/**
 * The playground's state, and its form in the URL: a link reproduces the page. The state is JSON,
 * compressed with the platform's `CompressionStream('deflate-raw')` (no library: browsers and Node 20
 * have it) and written base64url after `#s=` in the hash, so it never reaches a server.
 * @module
 */

/** Tabs of the page. */
export const TABS = ['rules', 'logpush', 'capture', 'diff'] as const;
export type Tab = (typeof TABS)[number];

/** Everything a link carries. A dropped capture is not part of it: it never leaves the browser. */
export interface PlaygroundState {
  tab: Tab;
  /** The rules tab edits one expression or a whole ruleset (JSON body). */
  mode: 'expression' | 'ruleset';
  /** The phase an expression is checked for (a ruleset's own `phase` wins): its fields, and packets or requests. */
  phase: string;
  /** Requests the rules of an HTTP phase run over: NDJSON request objects, or a HAR document. */
  requests: string;
  expression: string;
  ruleset: string;
  /** Lists as JSON text: `{"name": ["cidr", ...]}`. */
  lists: string;
  /** Columns of the packet table (field names). */
  fields: string[];
  /** Rows of the packet table: cell text by field (an empty or absent cell is a missing field). */
  packets: Record<string, string>[];
  dataset: string;
  /** The Logpush filter document. */
  filter: string;
  /** Sample log lines, NDJSON. */
  lines: string;
  /** The diff tab's two rulesets (JSON bodies): before and after the change. */
  diffOld: string;
  diffNew: string;
}

/** The prefix of the state in the hash; `v1` names the format, for links made by later versions. */
const PREFIX = '#s=v1.';

async function pipeThrough(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The hash (with `#`) that holds `state`. */
export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return PREFIX + toBase64Url(await pipeThrough(json, new CompressionStream('deflate-raw')));
}

/**
 * The state in a hash, over `defaults` for what it does not say; undefined when the hash holds no state,
 * and an error message when it holds one that cannot be read (a link cut short).
 */
export async function decodeState(hash: string, defaults: PlaygroundState): Promise<{ state?: PlaygroundState; error?: string }> {
  if (!hash.startsWith(PREFIX)) return {};
  let value: unknown;
  try {
    const bytes = await pipeThrough(fromBase64Url(hash.slice(PREFIX.length)), new DecompressionStream('deflate-raw'));
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { error: 'the link\'s state could not be read (cut short?); the samples are shown instead' };
  }
  return { state: mergeState(value, defaults) };
}

/** `value` read as a state: each member of the right type is taken, the rest comes from `defaults`. */
export function mergeState(value: unknown, defaults: PlaygroundState): PlaygroundState {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (k: keyof PlaygroundState) => (typeof v[k] === 'string' ? (v[k] as string) : (defaults[k] as string));
  const state: PlaygroundState = {
    tab: TABS.includes(v.tab as Tab) ? (v.tab as Tab) : defaults.tab,
    mode: v.mode === 'ruleset' || v.mode === 'expression' ? v.mode : defaults.mode,
    phase: text('phase'),
    requests: text('requests'),
    expression: text('expression'),
    ruleset: text('ruleset'),
    lists: text('lists'),
    fields: Array.isArray(v.fields) && v.fields.every((f) => typeof f === 'string') ? (v.fields as string[]) : defaults.fields,
    packets: Array.isArray(v.packets) && v.packets.every(isCells) ? (v.packets as Record<string, string>[]) : defaults.packets,
    dataset: text('dataset'),
    filter: text('filter'),
    lines: text('lines'),
    diffOld: text('diffOld'),
    diffNew: text('diffNew'),
  };
  return state;
}

function isCells(row: unknown): boolean {
  return typeof row === 'object' && row !== null && !Array.isArray(row) && Object.values(row).every((c) => typeof c === 'string');
}
