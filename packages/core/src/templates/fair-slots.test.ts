import { createFairSlots } from './fair-slots.ts';

/** Work that ends when the test says, recording when it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  const work = () => {
    started.push(name);
    return done;
  };
  return { work, open };
}

describe('createFairSlots', () => {
  it('hands a freed slot to the next organization in turn, not to the oldest work', async () => {
    const fair = createFairSlots(1);
    const started: string[] = [];
    const a = [1, 2, 3, 4].map((i) => gate(started, `a${i}`));
    const b = gate(started, 'b1');
    const runs = [...a.map((g) => fair.run('org_a', g.work)), fair.run('org_b', b.work)];
    await Promise.resolve();
    expect(started).toEqual(['a1']);
    a[0]!.open();
    await runs[0];
    await new Promise(setImmediate);
    // first come first served would start a2; org_b's one render goes next
    expect(started).toEqual(['a1', 'b1']);
    b.open();
    for (const g of a.slice(1)) g.open();
    await Promise.all(runs);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });

  it('never runs more than its slots at once, and frees a slot when work throws', async () => {
    const fair = createFairSlots(2);
    let running = 0;
    let most = 0;
    const work = async (fail: boolean) => {
      running++;
      most = Math.max(most, running);
      await new Promise(setImmediate);
      running--;
      if (fail) throw new Error('boom');
      return 'ok';
    };
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => fair.run(i % 2 ? 'a' : 'b', () => work(i === 0))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(most).toBe(2);
  });
});
