import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError, type EmailProvider, type OutgoingEmail, type ProviderAccepted, type ProviderPace } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { claimBatchSends, groupOf, keepGroup, reclaimInDoubt, renameCall, settleBatchSends, takeOverGroup, type BatchClaim } from './batch-claims.ts';
import { SendDeferred } from './deferral.ts';
import { correctProviderPace, takeProviderSlot, type PaceAccount } from './pace-limiter.ts';

type Waiting = { email: OutgoingEmail; resolve(accepted: ProviderAccepted): void; reject(error: unknown): void };
type Gate = { account: PaceAccount; provider: EmailProvider; waiting: Waiting[]; isRunning: boolean };

/**
 * The bulk lane's provider calls of one process, one gate per provider account: the sends in flight wait in line, the
 * gate takes one bulk slot of the account's limiter at a time and spends it on as many of them as the provider's batch
 * endpoint takes (Resend: 100 without attachments), else on one. Made and closed with the dependencies.
 */
export type ProviderBatches = {
  /** Sends one bulk email at `account`'s pace; resolves with its own answer (one refused email fails only itself). */
  send(account: PaceAccount, provider: EmailProvider, email: OutgoingEmail): Promise<ProviderAccepted>;
  /** Stops the gates: what still waits is told to wait as a delayed job. */
  close(): void;
};

/**
 * A bulk call waits for a full batch, else one interval of the account's rate at most (Resend at 5 a second: 200 ms),
 * looking every GATHER_MS. The next slot comes no sooner than that at a steady pace, so filling the batch costs no
 * throughput; calling at once with the first sends to arrive (a worker taking its jobs, at the start of a broadcast)
 * wasted the lane's burst: six calls of 20 to 80 for 200 sends, against two full ones.
 */
const GATHER_MS = 15;

/** Waits while `gate`'s line is short of a batch, for at most one interval of its rate. */
async function gather(gate: Gate, batchSize: number): Promise<void> {
  const until = Date.now() + 1000 / gate.account.ratePerSecond;
  while (gate.waiting.length < batchSize && Date.now() < until) await sleep(GATHER_MS);
}

const isBatchable = (email: OutgoingEmail) => !email.attachments?.length;

/**
 * Makes the process's bulk gates (see ProviderBatches).
 * @example const batches = createProviderBatches(deps); const accepted = await batches.send(account, resend, email);
 */
export function createProviderBatches(deps: Pick<Deps, 'rateLimits' | 'config' | 'metrics' | 'logger'>): ProviderBatches {
  // one per provider account this process sends bulk through: a handful at most
  const gates = new Map<string, Gate>();
  let isClosed = false;

  const deferAll = (gate: Gate, at: Date) => {
    for (const w of gate.waiting.splice(0)) w.reject(new SendDeferred(at, gate.account.reason, gate.account.provider));
  };

  async function run(gate: Gate): Promise<void> {
    gate.isRunning = true;
    try {
      const batchSize = gate.provider.sendEmailBatch ? (gate.provider.batchSize ?? 1) : 1;
      let hasGathered = false;
      while (gate.waiting.length > 0) {
        if (isClosed) return deferAll(gate, new Date(Date.now() + 1000));
        // the batch fills before its slot is taken, so that the call goes at the slot's time (a slot taken first and
        // held while gathering sent its call late, and the slots after it, ahead by the lane's burst, bunched the
        // calls past the provider's depth); a wait for the slot gathers too, so it is not added to
        if (batchSize > 1 && !hasGathered) await gather(gate, batchSize);
        hasGathered = true;
        const slot = await takeProviderSlot(deps, gate.account, 'bulk', { reserve: false });
        if (slot.kind === 'wait') {
          // a long wait (a provider's retry-after) is not spent holding jobs: they come back as delayed jobs
          if (slot.waitMs > deps.config.pace.maxWaitMs) deferAll(gate, new Date(Date.now() + slot.waitMs));
          else await sleep(slot.waitMs);
          continue;
        }
        void dispatch(gate, takeBatch(gate.waiting, batchSize));
        hasGathered = false;
      }
    } catch (error) {
      // the limiter could not be read (Redis): each waiting send fails as ours, and its job runs again later
      for (const w of gate.waiting.splice(0)) w.reject(error);
    } finally {
      gate.isRunning = false;
    }
  }

  // best effort: the answers are given already; a limiter that cannot be corrected corrects itself at the next 429
  const correct = (gate: Gate, pace: ProviderPace | undefined, retryAfterMs?: number) =>
    correctProviderPace(deps, gate.account, pace, { isRateLimited: retryAfterMs !== undefined, retryAfterMs }).catch((err) =>
      deps.logger.warn({ err, provider: gate.account.provider }, 'could not correct the provider pace'),
    );

  /** How long a call may go unanswered before its messages are in doubt (see batch-claims.ts). */
  const inFlightMs = () => 2 * deps.config.sendWorker.providerTimeoutMs;
  const inFlightElsewhere = (gate: Gate) => new SendDeferred(new Date(Date.now() + inFlightMs()), gate.account.reason, gate.account.provider);
  const warnOf = (what: string) => (err: unknown) => deps.logger.warn({ err }, what);

  async function dispatch(gate: Gate, waiting: Waiting[]): Promise<void> {
    try {
      const { mine, claimedAs } = await claimed(gate, waiting);
      await send(gate, mine, claimedAs);
    } catch (error) {
      // the claims could not be taken or kept (Redis): each send fails as ours, and its job runs again later
      for (const w of waiting) w.reject(error);
    }
  }

  /**
   * One call of claimed sends: named by its members (their claims renamed where they were taken under another name)
   * and kept first when it is a batch, so that it can be made again.
   */
  async function send(gate: Gate, mine: Waiting[], claimedAs: string | null): Promise<void> {
    if (mine.length === 0) return;
    const ids = mine.map((w) => w.email.messageId);
    const group = mine.length > 1 ? groupOf(ids) : null;
    if (group !== claimedAs) await renameCall(deps, ids, { inFlightMs: inFlightMs(), group });
    if (group)
      await keepGroup(
        deps,
        group,
        mine.map((w) => w.email),
      );
    await call(
      gate,
      mine.map((w) => w.email),
      { group, inHand: new Map(mine.map((w) => [w.email.messageId, w])) },
    );
  }

  /** The provider call of `emails` (one, or a batch), its claims settled and the sends in hand answered. */
  async function call(gate: Gate, emails: OutgoingEmail[], { group, inHand }: { group: string | null; inHand: Map<string, Waiting> }): Promise<void> {
    try {
      const results =
        emails.length === 1
          ? [await gate.provider.sendEmail(emails[0]!)]
          : await gate.provider.sendEmailBatch!(emails).then(({ results, pace }) => {
              void correct(gate, pace);
              return results;
            });
      if (emails.length === 1) void correct(gate, (results[0] as ProviderAccepted).pace);
      await settleBatchSends(
        deps,
        results.map((result, index) => ({ messageId: emails[index]!.messageId, providerMessageId: 'error' in result ? undefined : result.providerMessageId })),
        group,
      ).catch(warnOf('could not record the batch claims'));
      for (const [index, result] of results.entries()) {
        const w = inHand.get(emails[index]!.messageId);
        if (!w) continue; // a member of a call made again for a run that has ended: its claim says `sent` now
        if ('error' in result) w.reject(result.error);
        else w.resolve(result);
      }
    } catch (error) {
      const batch = [...inHand.values()];
      if (error instanceof ProviderError && (error.isRateLimited || error.status !== undefined)) {
        // the provider answered and sent nothing: the claims go, so that the next call may send them (a call without
        // an answer keeps them: it may have sent, and is made again once overdue)
        await settleBatchSends(
          deps,
          emails.map((e) => ({ messageId: e.messageId })),
          group,
        ).catch(warnOf('could not release the batch claims'));
      }
      if (error instanceof ProviderError && error.isRateLimited) {
        // the provider's limit, not an outage: the same sends wait their turn again, first in line
        deps.metrics.providerDeferrals.inc({ provider: gate.account.provider, reason: gate.account.reason });
        deps.metrics.providerCalls.inc({ provider: gate.account.provider, channel: 'email', outcome: 'rate_limited' });
        gate.waiting.unshift(...batch);
        await correct(gate, undefined, error.retryAfterMs ?? 1000);
        if (!gate.isRunning) void run(gate);
        return;
      }
      for (const w of batch) w.reject(error);
    }
  }

  /**
   * A call left without an answer (its process killed, or timed out), made again: the same emails in the same order,
   * so the same idempotency key, and the provider answers from its record where it had sent them. Another run already
   * at it: these wait; its emails never kept (killed before the call): these go on fresh claims.
   */
  async function callAgain(gate: Gate, group: string, members: Waiting[]): Promise<void> {
    try {
      const taken = await takeOverGroup(deps, group, inFlightMs());
      if (taken.kind === 'taken') {
        return await call(gate, taken.emails, { group, inHand: new Map(members.map((w) => [w.email.messageId, w])) });
      }
      if (taken.kind === 'busy') {
        for (const w of members) w.reject(inFlightElsewhere(gate));
        return;
      }
      const claims = await reclaimInDoubt(
        deps,
        members.map((w) => w.email.messageId),
        { inFlightMs: inFlightMs(), group: null },
      );
      await send(gate, answerClaims(gate, members, claims), null);
    } catch (error) {
      for (const w of members) w.reject(error);
    }
  }

  /** Answers the sends another run made or is making; returns those this run may send. */
  function answerClaims(gate: Gate, waiting: Waiting[], claims: BatchClaim[]): Waiting[] {
    const mine: Waiting[] = [];
    for (const [index, claim] of claims.entries()) {
      const w = waiting[index]!;
      if (claim.kind === 'claimed') mine.push(w);
      else if (claim.kind === 'sent') w.resolve({ providerMessageId: claim.providerMessageId });
      else w.reject(inFlightElsewhere(gate));
    }
    return mine;
  }

  /**
   * The sends of `waiting` this run may make (see claimBatchSends); the others are answered here, and those of a call in
   * doubt go again in that same call (a single email's call is made again as it was: its key is its message id).
   */
  async function claimed(gate: Gate, waiting: Waiting[]): Promise<{ mine: Waiting[]; claimedAs: string | null }> {
    const ids = waiting.map((w) => w.email.messageId);
    const claimedAs = ids.length > 1 ? groupOf(ids) : null;
    const claims = await claimBatchSends(deps, ids, { inFlightMs: inFlightMs(), group: claimedAs });
    const doubted = new Map<string, Waiting[]>();
    const fresh: Waiting[] = [];
    const freshClaims: BatchClaim[] = [];
    for (const [index, claim] of claims.entries()) {
      const w = waiting[index]!;
      if (claim.kind !== 'inDoubt') {
        fresh.push(w);
        freshClaims.push(claim);
      } else if (claim.group === null) {
        void call(gate, [w.email], { group: null, inHand: new Map([[w.email.messageId, w]]) });
      } else {
        doubted.set(claim.group, [...(doubted.get(claim.group) ?? []), w]);
      }
    }
    for (const [group, members] of doubted) void callAgain(gate, group, members);
    return { mine: answerClaims(gate, fresh, freshClaims), claimedAs };
  }

  return {
    send(account, provider, email) {
      if (isClosed) return Promise.reject(new SendDeferred(new Date(Date.now() + 1000), account.reason, account.provider));
      let gate = gates.get(account.name);
      if (!gate) {
        gate = { account, provider, waiting: [], isRunning: false };
        gates.set(account.name, gate);
      }
      gate.account = account; // its rate may have been corrected since
      const g = gate;
      return new Promise<ProviderAccepted>((resolve, reject) => {
        g.waiting.push({ email, resolve, reject });
        if (!g.isRunning) void run(g);
      });
    },
    close() {
      isClosed = true;
      for (const gate of gates.values()) if (!gate.isRunning) deferAll(gate, new Date(Date.now() + 1000));
    },
  };
}

/** Takes the next call's sends off the line: the first one alone when it cannot be batched, else up to `size` batchable ones in order. */
function takeBatch(waiting: Waiting[], size: number): Waiting[] {
  if (size <= 1 || !isBatchable(waiting[0]!.email)) return waiting.splice(0, 1);
  const taken: Waiting[] = [];
  for (let i = 0; i < waiting.length && taken.length < size; ) {
    if (isBatchable(waiting[i]!.email)) taken.push(...waiting.splice(i, 1));
    else i++;
  }
  return taken;
}
