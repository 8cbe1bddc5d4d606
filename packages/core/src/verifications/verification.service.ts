import { VERIFY_LIMITS, type CreateVerificationBody, type Verification, type VerificationCheck, type VerificationListQuery, type VerificationStatus } from '@tidings/contracts';
import type { Verification as VerificationRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import type { RequestContext } from '../request-context.ts';
import { AppError, foundOr404, RetryLaterError } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { retryAfterOf, sendMessages } from '../messages/send-messages.ts';
import { findOrganizationName } from '../organizations/organization.store.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { paginate, type Page } from '../pagination.ts';
import { smsDestinationOf } from '../sms/sms-fraud-guard.ts';
import { CODE_MASK, codeHashOf, codeOf, newCodeSeed } from './verification-code.ts';
import { codeMessageContent, VERIFICATION_METADATA, withCode } from './verification-message.ts';
import {
  appendVerificationMessage,
  checkVerificationCode,
  deleteVerification,
  findOrgVerification,
  findPendingVerification,
  insertVerification,
  listSendTimesSince,
  listVerificationsPage,
  lockVerificationRecipient,
  markOverdueVerificationsExpired,
  recordVerificationResend,
  restoreVerificationSend,
  settleVerification,
} from './verification.store.ts';

const L = VERIFY_LIMITS;
const SECOND_MS = 1000;

/**
 * The API's view of a row: a pending one past its expiry shows as `expired`. Never the code, its hash or its seed.
 * @example c.json(toVerification(row, deps.now()), 200)
 */
export function toVerification(row: VerificationRow, now: Date): Verification {
  const status = row.status === 'pending' && row.expiresAt <= now ? 'expired' : (row.status as VerificationStatus);
  return {
    id: row.id,
    channelType: row.channelType as Verification['channelType'],
    to: row.to,
    status,
    expiresAt: row.expiresAt.toISOString(),
    sendAttempts: row.sendAttempts,
    checkAttempts: row.checkAttempts,
    messageIds: row.messageIds,
    createdAt: row.createdAt.toISOString(),
    approvedAt: row.approvedAt?.toISOString() ?? null,
  };
}

/** `to` as stored and compared: E.164 for SMS, lower case for email (a 400 when it is neither). */
function normalizedRecipient(input: Pick<CreateVerificationBody, 'channelType' | 'to'>): string {
  if (input.channelType === 'email') return input.to.toLowerCase();
  if (!/^\+[1-9]\d{6,14}$/.test(input.to)) throw new AppError('BAD_REQUEST', 'to: must be a phone number in E.164 form, such as +14155550123');
  return input.to;
}

/** How long the next resend waits after the last send: 30 s, doubling with each send. */
const cooldownMs = (sendAttempts: number) => L.cooldownSeconds * SECOND_MS * 2 ** (sendAttempts - 1);

const retryIn = (untilMs: number, nowMs: number) => Math.max(1, Math.ceil((untilMs - nowMs) / SECOND_MS));

/**
 * Decides, under a lock on the recipient, whether a code may go now (cooldown, per-`to` cap) and writes the send:
 * a new verification, or the pending one's next code. Returns the row and which send of it this is.
 */
async function reserveSend(deps: Deps, orgId: string, mode: KeyMode, to: string, input: CreateVerificationBody) {
  const now = deps.now();
  const secret = deps.config.verify.secret;
  return deps.db.$transaction(async (tx) => {
    await lockVerificationRecipient(tx, orgId, to);
    const windowStart = new Date(now.getTime() - L.sendWindowSeconds * SECOND_MS);
    const oldestCounted = new Date(windowStart.getTime() - L.expiresInSeconds.max * SECOND_MS);
    const sentInWindow = await listSendTimesSince(tx, { orgId, mode }, to, { since: windowStart, oldestVerification: oldestCounted });
    if (sentInWindow.length >= L.maxSendsPerWindow) {
      const seconds = retryIn(sentInWindow[0]!.getTime() + L.sendWindowSeconds * SECOND_MS, now.getTime());
      throw new RetryLaterError(
        `to: ${L.maxSendsPerWindow} codes were sent to this recipient in ${L.sendWindowSeconds / 60} minutes; retry in ${seconds} s`,
        seconds,
        'RATE_LIMITED',
      );
    }
    const expiresAt = new Date(now.getTime() + input.expiresInSeconds * SECOND_MS);
    const pending = await findPendingVerification(tx, { orgId, mode }, { channelType: input.channelType, to }, now);
    if (pending) {
      const readyAt = pending.sentAt.at(-1)!.getTime() + cooldownMs(pending.sendAttempts);
      if (now.getTime() < readyAt) {
        const seconds = retryIn(readyAt, now.getTime());
        throw new RetryLaterError(`to: a code was sent to this recipient moments ago; resend in ${seconds} s`, seconds, 'RATE_LIMITED');
      }
      const sendNumber = pending.sendAttempts + 1;
      const codeHash = codeHashOf(secret, pending.id, codeOf(secret, pending, sendNumber));
      const row = await recordVerificationResend(tx, pending.id, { codeHash, at: now, expiresAt });
      return { row, before: pending as VerificationRow | null, sendNumber };
    }
    const id = newId('ver');
    const seeded = { id, codeSeed: newCodeSeed(), codeLength: input.codeLength };
    const destination = input.channelType === 'sms' ? smsDestinationOf(to) : null;
    const row = await insertVerification(tx, {
      ...seeded,
      orgId,
      mode,
      channelType: input.channelType,
      to,
      status: 'pending',
      codeHash: codeHashOf(secret, id, codeOf(secret, seeded, 1)),
      expiresAt,
      sendAttempts: 1,
      sentAt: [now],
      messageIds: [],
      country: destination?.country ?? null,
      prefix: destination?.prefix ?? null,
      createdAt: now,
    });
    return { row, before: null as VerificationRow | null, sendNumber: 1 };
  });
}

/**
 * verification.create: sends a random code to `to` in a message on the transactional lane, or resends the pending
 * verification of `to` with a new code after its cooldown (429 with Retry-After before it, and beyond 5 sends in 10
 * minutes). The message is an ordinary one (message.list shows it); a live one's stored body has the code masked
 * (the send-worker puts it in at hand-off), a test one's (sandbox) keeps it readable. An SMS passes the fraud guard
 * in the send path; a message that cannot be written undoes the send.
 * @example const verification = await createVerification({ deps, orgId, mode: 'live' }, { channelType: 'sms', to: '+14155550123', codeLength: 6, expiresInSeconds: 600 });
 */
export async function createVerification(ctx: RequestContext, input: CreateVerificationBody): Promise<Verification> {
  const { deps, orgId, mode } = ctx;
  const to = normalizedRecipient(input);
  const org = foundOr404(await findOrganizationName(deps.db, orgId), 'Organization');
  const { content, placeholder } = await codeMessageContent(deps, orgId, org.name, input);
  const { row, before, sendNumber } = await reserveSend(deps, orgId, mode, to, input);
  const secret = deps.config.verify.secret;
  // the sandbox's copy is test data the test reads the code from; a live message is stored masked
  const shown = mode === 'test' ? codeOf(secret, row, sendNumber) : CODE_MASK;
  const metadata = { [VERIFICATION_METADATA.id]: row.id, [VERIFICATION_METADATA.send]: String(sendNumber) };
  const { data, errors } = await sendMessages(ctx, [
    {
      channelType: input.channelType,
      to,
      ...withCode(content, placeholder, shown),
      metadata,
      ...(input.channelType === 'email' ? { tracking: { opens: false, clicks: false } } : {}),
    },
  ]);
  const [error] = errors;
  if (error) {
    await (before ? restoreVerificationSend(deps.db, before) : deleteVerification(deps.db, row.id));
    const retryAfter = retryAfterOf(error);
    throw retryAfter ? new RetryLaterError(error.message, retryAfter, error.code as 'RATE_LIMITED') : new AppError(error.code as 'BAD_REQUEST', error.message);
  }
  const messageId = data[0]!.id;
  await appendVerificationMessage(deps.db, row.id, messageId);
  return toVerification({ ...row, messageIds: [...row.messageIds, messageId] }, deps.now());
}

/**
 * verification.check: `approved` once for the right code, `pending` for a wrong one, `max_attempts_reached` at the
 * fifth wrong one; the attempt is counted and the status decided in one statement. The first check after expiry
 * settles it `expired`. A spent (approved) verification is a 409: a code works once. `verification.approved` and
 * `verification.expired` are webhook events, written with the change.
 * @example const { status } = await checkVerification({ deps, orgId, mode: 'live' }, 'ver_...', '492817');
 */
export async function checkVerification({ deps, orgId, mode }: RequestContext, id: string, code: string): Promise<VerificationCheck> {
  const now = deps.now();
  const candidate = codeHashOf(deps.config.verify.secret, id, code);
  const status = await unitOfWork(deps, async (tx, outbox): Promise<VerificationStatus> => {
    const checked = await checkVerificationCode(tx, { orgId, mode }, id, { candidateHash: candidate, now, maxAttempts: L.maxCheckAttempts });
    if (checked) {
      const events = checked.status === 'approved' ? [{ orgId, type: 'verification.approved' as const, data: toVerification(checked, now) }] : [];
      outbox.add(await recordEvents(tx, events));
      return checked.status as VerificationStatus;
    }
    const current = foundOr404(await findOrgVerification(tx, orgId, id, mode), 'Verification');
    if (current.status === 'approved') throw new AppError('CONFLICT', 'Verification is already approved; a code works once');
    const expired = current.status === 'pending' ? await settleVerification(tx, { orgId, mode, id, status: 'expired', now, onlyUnexpired: false }) : undefined;
    // pending here means past its expiry: settled meanwhile (the expiry sweep, or a cancel), it answers expired
    if (!expired) return current.status === 'pending' ? 'expired' : (current.status as VerificationStatus);
    outbox.add(await recordEvents(tx, [{ orgId, type: 'verification.expired', data: toVerification(expired, now) }]));
    return 'expired';
  });
  return { id, status };
}

/** How many overdue verifications one run of the expiry sweep settles at most. */
const EXPIRY_SWEEP_BATCH = 500;

/**
 * The expiry sweep: settles up to `limit` pending verifications past their expiry as `expired`, with their
 * `verification.expired` events in the same transaction, so the event comes when the code expires even if nobody
 * checks; a later check finds it expired and writes no second event. Returns how many it expired.
 * @example const expired = await expireOverdueVerifications(deps);
 */
export async function expireOverdueVerifications(deps: Deps, limit = EXPIRY_SWEEP_BATCH): Promise<number> {
  const now = deps.now();
  return unitOfWork(deps, async (tx, outbox) => {
    const rows = await markOverdueVerificationsExpired(tx, now, limit);
    const events = rows.map((row) => ({ orgId: row.orgId, type: 'verification.expired' as const, data: toVerification(row, now) }));
    outbox.add(await recordEvents(tx, events));
    return rows.length;
  });
}

/**
 * verification.get: never the code.
 * @example await getVerification(deps, orgId, 'live', 'ver_...')
 */
export async function getVerification(deps: Pick<Deps, 'db' | 'now'>, orgId: string, mode: KeyMode, id: string): Promise<Verification> {
  return toVerification(foundOr404(await findOrgVerification(deps.db, orgId, id, mode), 'Verification'), deps.now());
}

/**
 * verification.cancel: its code stops working. One approved, expired or otherwise settled is a 409 naming its status.
 * @example await cancelVerification(deps, orgId, 'live', 'ver_...')
 */
export async function cancelVerification(deps: Pick<Deps, 'db' | 'now' | 'actor'>, orgId: string, mode: KeyMode, id: string): Promise<Verification> {
  const now = deps.now();
  const row = await deps.db.$transaction(async (tx) => {
    const canceled = await settleVerification(tx, { orgId, mode, id, status: 'canceled', now, onlyUnexpired: true });
    if (!canceled) {
      const current = toVerification(foundOr404(await findOrgVerification(tx, orgId, id, mode), 'Verification'), now);
      throw new AppError('CONFLICT', `Verification is ${current.status}; only a pending one can be canceled`);
    }
    await recordAudit(tx, deps.actor, { orgId, action: 'verification.canceled', targetId: id });
    return canceled;
  });
  return toVerification(row, now);
}

/**
 * verification.list: newest first, by status and channel; a key sees its own mode's.
 * @example await listVerifications(deps, orgId, 'live', { limit: 20, offset: 0, status: 'approved' })
 */
export async function listVerifications(deps: Pick<Deps, 'db' | 'now'>, orgId: string, mode: KeyMode, query: VerificationListQuery): Promise<Page<Verification>> {
  const now = deps.now();
  const filter = { mode, now, ...(query.status ? { status: query.status } : {}), ...(query.channelType ? { channelType: query.channelType } : {}) };
  return paginate(
    query,
    (page) => listVerificationsPage(deps.db, orgId, filter, page),
    (row) => toVerification(row, now),
  );
}
