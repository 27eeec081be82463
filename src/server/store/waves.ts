/**
 * Reads by key in waves: a read asked for while one of the same key is in flight waits for the next,
 * which starts when the one in flight ends and answers every reader that queued meanwhile. Each reader is
 * answered by a read that started after it asked, so it sees every write committed before it asked,
 * while a busy key costs one read per wave instead of one per reader.
 * @module
 */
interface Wave<T> {
  resolve: ((value: T) => void)[];
  reject: ((error: unknown) => void)[];
}

export class ReadWaves<T> {
  /** Keys with a read in flight, and the readers waiting for the next. */
  private readonly next = new Map<string, Wave<T>>();

  /** The value of `read()` from a read that starts after this call. */
  read(key: string, read: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting = this.next.get(key);
      if (waiting) {
        waiting.resolve.push(resolve);
        waiting.reject.push(reject);
        return;
      }
      this.next.set(key, { resolve: [], reject: [] });
      void this.run(key, read, { resolve: [resolve], reject: [reject] });
    });
  }

  private async run(key: string, read: () => Promise<T>, wave: Wave<T>): Promise<void> {
    for (;;) {
      try {
        const value = await read();
        for (const r of wave.resolve) r(value);
      } catch (e) {
        for (const r of wave.reject) r(e);
      }
      const queued = this.next.get(key)!;
      if (!queued.resolve.length) {
        this.next.delete(key);
        return;
      }
      this.next.set(key, { resolve: [], reject: [] });
      wave = queued;
    }
  }
}
