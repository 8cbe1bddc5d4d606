/**
 * How much of something is open at once, per name (connections of a client address, mails or bytes of an API key):
 * `take` counts `amount` in only while the name stays within `max`, `release` counts it out. Names at zero are
 * forgotten, so the map holds only what is open.
 * @example const mails = new OpenCounts(); if (!mails.take(keyId, 8)) refuse(); ...; mails.release(keyId);
 */
export class OpenCounts {
  private readonly counts = new Map<string, number>();

  take(name: string, max: number, amount = 1): boolean {
    const count = this.counts.get(name) ?? 0;
    if (count + amount > max) return false;
    this.counts.set(name, count + amount);
    return true;
  }

  release(name: string, amount = 1): void {
    const count = (this.counts.get(name) ?? 0) - amount;
    if (count <= 0) this.counts.delete(name);
    else this.counts.set(name, count);
  }
}

/**
 * Work taken in turns per name: each `run` starts once the previous one of its name has ended (whatever its outcome),
 * different names run side by side. The map holds only names with work in progress.
 * @example const stored = await turns.run(keyId, () => submitMessage(...));
 */
export class Turns {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(name) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => {},
      () => {}, // the caller has the outcome; the next turn only waits for it
    );
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return result;
  }
}
