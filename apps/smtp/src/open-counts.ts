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
 * Work taken in turns per name: at most `width` runs of a name at once (1: each starts once the previous one has
 * ended, whatever its outcome), the others wait in order; different names run side by side. The map holds only names
 * with work in progress.
 * @example const stored = await turns.run(keyId, () => submitMessage(...));
 */
export class Turns {
  private readonly names = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly width = 1) {}

  async run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const entry = this.names.get(name) ?? { running: 0, waiting: [] };
    this.names.set(name, entry);
    if (entry.running < this.width) entry.running += 1;
    else await new Promise<void>((resolve) => entry.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // the place goes on to the next in line, or is given up
      const next = entry.waiting.shift();
      if (next) next();
      else if (--entry.running === 0) this.names.delete(name);
    }
  }
}
