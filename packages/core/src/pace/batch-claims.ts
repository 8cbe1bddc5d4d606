import { createHash } from 'node:crypto';
import type { OutgoingEmail } from '@tidings/providers';
import type { Deps } from '../deps.ts';

/**
 * What a batched email's claim found: it is this run's to send, another run is sending it, it went out already, or
 * the call that took it gave no answer in time (its process died, or the call timed out): in doubt, `group` says
 * which call, so the same call can be made again with the same key (see `takeOverGroup`).
 */
export type BatchClaim = { kind: 'claimed' } | { kind: 'inFlight' } | { kind: 'sent'; providerMessageId: string } | { kind: 'inDoubt'; group: string | null };

/** How long a claim and a batch's emails are kept: longer than any job of the message runs again, as long as Resend keeps an idempotency key. */
const KEPT_MS = 24 * 60 * 60_000;

const claimKey = (prefix: string, messageId: string) => `${prefix}:pace:sent:{${messageId}}`;
const groupKey = (prefix: string, group: string) => `${prefix}:pace:batch:{${group}}`;
const takeOverKey = (prefix: string, group: string) => `${prefix}:pace:takeover:{${group}}`;

type ClaimDeps = Pick<Deps, 'rateLimits' | 'config'>;

/** The name of a call of these emails: the same emails in the same order always make the same call (and key). */
export const groupOf = (messageIds: readonly string[]) => createHash('sha256').update(messageIds.join(',')).digest('hex').slice(0, 32);

/**
 * Claims each message of a batch before the call. A batch's idempotency key covers that batch only, so a job run
 * again (its lock lost while it waited, its process killed) would put its message in another batch and send it twice:
 * the claim, one key per message (set if absent), lets only one run call the provider. A claim names its call
 * (`group`, null for a call of one email, whose key is its own message id) and when that call is overdue
 * (`inFlightMs`); a message sent keeps its provider id here, so a later run records it without a call.
 * @example const claims = await claimBatchSends(deps, ids, { inFlightMs: 30_000, group: groupOf(ids) });
 */
export async function claimBatchSends(deps: ClaimDeps, messageIds: string[], call: { inFlightMs: number; group: string | null }): Promise<BatchClaim[]> {
  const redis = deps.rateLimits.connection;
  const keys = messageIds.map((id) => claimKey(deps.config.redisPrefix, id));
  const pending = `pending:${Date.now() + call.inFlightMs}:${call.group ?? ''}`;
  // one round trip for all of them: the connection pipelines the commands of one turn
  const set = await Promise.all(keys.map((key) => redis.set(key, pending, 'PX', KEPT_MS, 'NX')));
  const held = await Promise.all(keys.map((key, i) => (set[i] === 'OK' ? null : redis.get(key))));
  return held.map((value, i): BatchClaim => {
    if (set[i] === 'OK') return { kind: 'claimed' };
    if (value?.startsWith('sent:')) return { kind: 'sent', providerMessageId: value.slice('sent:'.length) };
    // gone between the two commands (a settle released it): looked at again shortly
    if (value === null) return { kind: 'inFlight' };
    const [, dueAt, group] = value.split(':');
    return Number(dueAt) > Date.now() ? { kind: 'inFlight' } : { kind: 'inDoubt', group: group || null };
  });
}

/**
 * Keeps the emails of a batch call until its answer is recorded, so that a call left without an answer can be made
 * again exactly (same emails, same order, so the same idempotency key: the provider answers from its record).
 * @example await keepGroup(deps, group, emails);
 */
export async function keepGroup(deps: ClaimDeps, group: string, emails: readonly OutgoingEmail[]): Promise<void> {
  await deps.rateLimits.connection.set(groupKey(deps.config.redisPrefix, group), JSON.stringify(emails), 'PX', KEPT_MS);
}

/**
 * A call in doubt, for one run to make again: its emails, `busy` while another run makes it (`inFlightMs`), or
 * `gone` when they were never kept or are answered. The members' claims go back to pending meanwhile.
 * @example const taken = await takeOverGroup(deps, group, 30_000); if (taken.kind === 'taken') await provider.sendEmailBatch(taken.emails);
 */
export async function takeOverGroup(deps: ClaimDeps, group: string, inFlightMs: number): Promise<{ kind: 'taken'; emails: OutgoingEmail[] } | { kind: 'busy' } | { kind: 'gone' }> {
  const redis = deps.rateLimits.connection;
  const prefix = deps.config.redisPrefix;
  if ((await redis.set(takeOverKey(prefix, group), '1', 'PX', inFlightMs, 'NX')) !== 'OK') return { kind: 'busy' };
  const kept = await redis.get(groupKey(prefix, group));
  // never kept (its process died before the call) or answered meanwhile: each member is sent on its own claim
  if (!kept) return { kind: 'gone' };
  const emails = (JSON.parse(kept) as (OutgoingEmail & { date?: string })[]).map((e) => ({ ...e, date: e.date ? new Date(e.date) : undefined }));
  const pending = `pending:${Date.now() + inFlightMs}:${group}`;
  await Promise.all(emails.map((e) => redis.set(claimKey(prefix, e.messageId), pending, 'PX', KEPT_MS, 'XX')));
  return { kind: 'taken', emails };
}

// sets a claim to a new pending value only while it is pending (a settle may have recorded it sent meanwhile)
const RECLAIM = `local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 8) == 'pending:' then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/**
 * Takes back the claims of a call in doubt whose emails are gone (never kept: its process died before the call):
 * the messages still pending are this run's to send; the others were answered meanwhile (`sent`, or released).
 * @example const claims = await reclaimInDoubt(deps, ids, { inFlightMs: 30_000, group: null });
 */
export async function reclaimInDoubt(deps: ClaimDeps, messageIds: string[], call: { inFlightMs: number; group: string | null }): Promise<BatchClaim[]> {
  const redis = deps.rateLimits.connection;
  const pending = `pending:${Date.now() + call.inFlightMs}:${call.group ?? ''}`;
  const keys = messageIds.map((id) => claimKey(deps.config.redisPrefix, id));
  const taken = await Promise.all(keys.map((key) => redis.eval(RECLAIM, 1, key, pending, String(KEPT_MS)) as Promise<number>));
  const held = await Promise.all(keys.map((key, i) => (taken[i] === 1 ? null : redis.get(key))));
  return held.map((value, i): BatchClaim => {
    if (taken[i] === 1) return { kind: 'claimed' };
    return value?.startsWith('sent:') ? { kind: 'sent', providerMessageId: value.slice('sent:'.length) } : { kind: 'inFlight' };
  });
}

/**
 * Names the call the claimed messages go in (a claim is taken before the call's members are known: some may have been
 * another run's).
 * @example await renameCall(deps, ids, { inFlightMs: 30_000, group: groupOf(ids) });
 */
export async function renameCall(deps: ClaimDeps, messageIds: string[], call: { inFlightMs: number; group: string | null }): Promise<void> {
  const redis = deps.rateLimits.connection;
  const pending = `pending:${Date.now() + call.inFlightMs}:${call.group ?? ''}`;
  await Promise.all(messageIds.map((id) => redis.set(claimKey(deps.config.redisPrefix, id), pending, 'PX', KEPT_MS, 'XX')));
}

/**
 * After the call: a sent message's claim keeps its provider id; a refused or rate-limited one's is released, so that
 * its next attempt may call again (a call without an answer keeps its claims, in doubt once overdue). A batch's kept
 * emails go once it is answered.
 * @example await settleBatchSends(deps, [{ messageId, providerMessageId }, { messageId: other }], group);
 */
export async function settleBatchSends(deps: ClaimDeps, outcomes: { messageId: string; providerMessageId?: string }[], group: string | null = null): Promise<void> {
  const redis = deps.rateLimits.connection;
  const prefix = deps.config.redisPrefix;
  await Promise.all([
    ...outcomes.map(({ messageId, providerMessageId }) => {
      const key = claimKey(prefix, messageId);
      return providerMessageId ? redis.set(key, `sent:${providerMessageId}`, 'PX', KEPT_MS) : redis.del(key);
    }),
    ...(group ? [redis.del(groupKey(prefix, group))] : []),
  ]);
}
