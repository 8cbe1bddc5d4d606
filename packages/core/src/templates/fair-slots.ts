/** Runs work in a fixed number of slots, handed out between keys in turn (see createFairSlots). */
export type FairSlots = { run<T>(key: string, work: () => Promise<T>): Promise<T> };

type KeyState = { waiting: (() => void)[]; running: number; lastStarted: number };

/**
 * At most `slots` pieces of work at once. A freed slot goes to the waiting key with the least work running, and among
 * those to the one that started work longest ago (a key never served first), not to the oldest piece of work: an
 * organization that queues a hundred renders holds one turn in each round, so another's single render waits for at
 * most one of them, not for all of them.
 * @example const fair = createFairSlots(2); await fair.run(orgId, () => pool.run(task));
 */
export function createFairSlots(slots: number): FairSlots {
  let busy = 0;
  let ticks = 0;
  const keys = new Map<string, KeyState>();
  const next = () => {
    while (busy < slots) {
      let chosen: KeyState | undefined;
      for (const state of keys.values()) {
        if (state.waiting.length === 0) continue;
        if (!chosen || state.running < chosen.running || (state.running === chosen.running && state.lastStarted < chosen.lastStarted)) chosen = state;
      }
      if (!chosen) return;
      busy++;
      chosen.running++;
      chosen.lastStarted = ++ticks;
      chosen.waiting.shift()!();
    }
  };
  return {
    async run(key, work) {
      let state = keys.get(key);
      if (!state) {
        state = { waiting: [], running: 0, lastStarted: 0 };
        keys.set(key, state);
      }
      const own = state;
      await new Promise<void>((resolve) => {
        own.waiting.push(resolve);
        next();
      });
      try {
        return await work();
      } finally {
        busy--;
        own.running--;
        if (own.running === 0 && own.waiting.length === 0) keys.delete(key);
        next();
      }
    },
  };
}
