/**
 * Answers encoded into reused memory. A PUT's answer is ~22 KB of JSON text made of pieces (the envelope's
 * head, the record's stored text, the messages); sent as one string it was flattened into a new string on
 * V8's heap twice per answer (once to measure its UTF-8 length, once more after Node put the status line
 * and headers in front of it), a third of a PUT's garbage (sampled allocations under the bench's PUT
 * load), which the young generation's collections then paid for. A Buffer made per answer avoided
 * those copies but lived until a collection freed its memory, which the allocator gave back and took again
 * (page faults). Here each answer's pieces are encoded one after the other into a region of a few large
 * Buffers that are kept and reused: no copy on V8's heap, no memory asked of the system per answer.
 *
 * A region may be reused only once the socket has taken its bytes: the caller gives it back when the
 * response is closed (after it finished, or when the connection went away, after which nothing of it is
 * written). A region never given back keeps its slab from being reused, and when every slab is held the
 * caller is told to send a string instead, as it would without slabs: nothing is lost but speed.
 * @module
 */

/** A slab, the part of it handed out, and how many regions of it are still out. */
interface Slab {
  readonly bytes: Buffer;
  used: number;
  out: number;
}

/** A region of a slab holding one answer; `release` gives it back (calling it again does nothing). */
export interface Region {
  readonly bytes: Buffer;
  release(): void;
}

export class AnswerSlabs {
  /** The slab regions are cut from. */
  private current: Slab | undefined;
  /** Slabs with no region out, ready to be cut from the start again. */
  private readonly free: Slab[] = [];
  private count = 0;

  /**
   * @param slabBytes size of each slab
   * @param maxSlabs most slabs kept; with all of them holding regions out, {@link encode} answers undefined
   */
  constructor(private readonly slabBytes = 4 << 20, private readonly maxSlabs = 8) {}

  /**
   * The UTF-8 bytes of the pieces joined, in a region of a slab; undefined when they could need more than
   * a quarter of a slab, when no slab has room, or when a surrogate pair is split between two pieces
   * (then send them another way).
   */
  encode(pieces: readonly string[]): Region | undefined {
    let length = 0;
    let high = false;
    for (const p of pieces) {
      if (!p.length) continue;
      // A surrogate pair split between two pieces is one character of the joined text, but two lone
      // surrogates (two U+FFFD) encoded piece by piece: such pieces are left to the caller to join.
      const first = p.charCodeAt(0);
      if (high && first >= 0xdc00 && first <= 0xdfff) return undefined;
      const last = p.charCodeAt(p.length - 1);
      high = last >= 0xd800 && last <= 0xdbff;
      length += p.length;
    }
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
    const most = 3 * length;
    if (most > this.slabBytes / 4) return undefined;
    const slab = this.slabWith(most);
    if (!slab) return undefined;
    const start = slab.used;
    let at = start;
    for (const p of pieces) at += slab.bytes.write(p, at, 'utf8');
    slab.used = at;
    slab.out++;
    let given = false;
    return {
      bytes: slab.bytes.subarray(start, at),
      release: () => {
        if (given) return;
        given = true;
        if (--slab.out === 0 && slab !== this.current) this.free.push(slab);
      },
    };
  }

  /** A slab with `bytes` free at its end: the current one, else a free one, else a new one, else none. */
  private slabWith(bytes: number): Slab | undefined {
    const c = this.current;
    if (c && c.used + bytes <= c.bytes.length) return c;
    // The current slab is full: with no region out it starts over, else it is left to its regions, and
    // goes back to the free list when the last is given back (see release).
    if (c && c.out === 0) {
      c.used = 0;
      return c;
    }
    let next = this.free.pop();
    if (!next) {
      if (this.count >= this.maxSlabs) return undefined;
      this.count++;
      // allocUnsafeSlow: memory of its own (not Node's shared pool), never handed out uninitialised
      // (every byte sent was written first).
      next = { bytes: Buffer.allocUnsafeSlow(this.slabBytes), used: 0, out: 0 };
    }
    next.used = 0;
    this.current = next;
    return next;
  }
}
