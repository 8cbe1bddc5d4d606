import { groupCommit } from '../group-commit.ts';
import { takeProviderSlots, type PaceAccount, type PaceDeps, type PaceSlot, type SlotTake } from './pace-limiter.ts';

/** A process's slot takes, gathered (see createSlotTakes). */
export type SlotTakes = (account: PaceAccount, take: SlotTake) => Promise<PaceSlot>;

/**
 * The slot takes of a process's concurrent sends, gathered: one script call per account for the takes that arrive
 * together (group commit), instead of one round trip to Redis for each send. Made with the dependencies.
 * @example const takeSlot = createSlotTakes(deps); const slot = await takeSlot(account, { lane: 'transactional', reserve: true });
 */
export function createSlotTakes(deps: PaceDeps): SlotTakes {
  type Item = { account: PaceAccount; take: SlotTake };
  const takeMany = async (items: Item[]): Promise<PaceSlot[]> => {
    const byAccount = new Map<string, { account: PaceAccount; indexes: number[] }>();
    for (const [i, { account }] of items.entries()) {
      const group = byAccount.get(account.name) ?? { account, indexes: [] };
      group.indexes.push(i);
      byAccount.set(account.name, group);
    }
    const slots: PaceSlot[] = [];
    await Promise.all(
      [...byAccount.values()].map(async ({ account, indexes }) => {
        const taken = await takeProviderSlots(
          deps,
          account,
          indexes.map((i) => items[i]!.take),
        );
        for (const [j, i] of indexes.entries()) slots[i] = taken[j]!;
      }),
    );
    return slots;
  };
  const take = groupCommit(takeMany, { maxSize: 200, maxInFlight: 1 });
  return (account, slotTake) => take({ account, take: slotTake });
}
