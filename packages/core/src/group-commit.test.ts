import { groupCommit } from './group-commit.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('groupCommit', () => {
  it('runs calls that arrive together as one group, each caller getting its own result', async () => {
    const groups: number[][] = [];
    const double = groupCommit(
      async (items: number[]) => {
        groups.push(items);
        return items.map((i) => i * 2);
      },
      { maxSize: 100, maxInFlight: 1 },
    );
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => double(i)));
    expect(results).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    expect(groups).toEqual([Array.from({ length: 30 }, (_, i) => i)]);
  });

  it('a lone call is not held for company: it runs within the event-loop turn it arrived in', async () => {
    const ran: number[] = [];
    const run = groupCommit(
      async (items: number[]) => {
        ran.push(...items);
        return items;
      },
      { maxSize: 100, maxInFlight: 1 },
    );
    const result = run(7);
    await nextTurn();
    expect(ran).toEqual([7]);
    await expect(result).resolves.toBe(7);
  });

  it('while maxInFlight groups run, later calls queue and leave together, at most maxSize by sizeOf per group', async () => {
    const groups: string[][] = [];
    let release: () => void = () => undefined;
    const run = groupCommit(
      async (items: string[]) => {
        groups.push(items);
        if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return items;
      },
      { maxSize: 5, maxInFlight: 1, sizeOf: (item) => item.length },
    );
    const first = run('a');
    await nextTurn();
    const later = ['bb', 'cc', 'd', 'ee', 'f'].map((item) => run(item));
    await nextTurn();
    expect(groups).toEqual([['a']]); // the first group still runs: the rest wait
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([['a'], ['bb', 'cc', 'd'], ['ee', 'f']]);
  });

  it('when a group fails, each of its calls runs again alone: only the bad one fails, with its own error', async () => {
    const groups: number[][] = [];
    const run = groupCommit(
      async (items: number[]) => {
        groups.push(items);
        if (items.includes(3)) throw new Error(`bad item among ${items.join(',')}`);
        return items;
      },
      { maxSize: 100, maxInFlight: 1 },
    );
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => run(i)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('bad item among 3');
    expect(groups).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
  });
});
