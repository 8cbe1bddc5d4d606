import type { promises as dns } from 'node:dns';
import type { DnsRecord, EmailDomain } from '@tidings/contracts';
import type { EmailDomain as EmailDomainRow, Prisma } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { refuseTestKeyOnProviderBacked } from '../provider-backed.ts';
import { checkDnsRecords, createDnsResolver } from './dns-check.ts';
import { findEmailDomain, toEmailDomain } from './email-domain.service.ts';
import { claimPendingEmailDomains, findEmailDomainByIdOrThrow, findEmailDomainsByIds, updateEmailDomainCheckIfStatus } from './email-domain.store.ts';

/** A domain still unverified this long after it was added is `failed`. */
export const VERIFICATION_WINDOW_MS = 72 * 60 * 60 * 1000;

type DomainStatus = EmailDomainRow['status'];
/** What the provider says, where it has its own verdict (SES): undefined when it has none, null when unreadable. */
type ProviderVerdict = 'verified' | 'pending' | 'failed' | null | undefined;

function nextStatus(row: EmailDomainRow, records: DnsRecord[], now: Date, verdict: ProviderVerdict): DomainStatus {
  // a provider that checks DNS itself does not send before it agrees, so neither do we
  const isProviderSatisfied = verdict === undefined || verdict === 'verified';
  if (records.filter((r) => r.required).every((r) => r.status === 'verified') && isProviderSatisfied) return 'verified';
  if (verdict === 'failed') return 'failed';
  // A verified domain whose records were removed must stop sending: receivers would reject its mail.
  if (row.status === 'verified') return 'failed';
  if (row.status === 'pending' && now.getTime() - row.createdAt.getTime() >= VERIFICATION_WINDOW_MS) return 'failed';
  return row.status;
}

/**
 * Checks one domain's records in DNS and stores the result. A change of the domain's status is written only if the
 * status is still the one read (so two checks at once report it once), with its `emailDomain.verified` or
 * `emailDomain.failed` event in the same transaction.
 */
async function checkDomain(deps: Deps, row: EmailDomainRow, resolver: dns.Resolver): Promise<EmailDomainRow> {
  const before = row.records as DnsRecord[];
  const statuses = await checkDnsRecords(resolver, before);
  const records = before.map((r, i) => ({ ...r, status: statuses[i]! }));
  const provider = deps.providers.domains({ name: row.provider });
  const verdict: ProviderVerdict =
    provider.status && row.providerDomainId
      ? await provider.status(row.providerDomainId).catch((error) => {
          deps.logger.warn({ err: error, domainId: row.id }, 'provider domain status unreadable; the domain stays as it is');
          return null;
        })
      : undefined;
  const now = deps.now();
  const status = nextStatus(row, records, now, verdict);
  const changed = status !== row.status;

  const updated = await unitOfWork(deps, async (tx, outbox) => {
    const data = {
      records: records as Prisma.InputJsonValue,
      status,
      lastCheckedAt: now,
      ...(changed && status === 'verified' ? { verifiedAt: now } : {}),
    };
    const { count } = await updateEmailDomainCheckIfStatus(tx, row.id, row.status, data);
    const current = await findEmailDomainByIdOrThrow(tx, row.id);
    if (count === 0 || !changed) return current;
    const type = status === 'verified' ? 'emailDomain.verified' : 'emailDomain.failed';
    outbox.add(await recordEvents(tx, [{ orgId: row.orgId, type, data: toEmailDomain(current) as Prisma.InputJsonValue }]));
    return current;
  });

  if (changed && status === 'verified' && provider.verify && row.providerDomainId) {
    // Our check passed; the provider runs its own before it sends. Best effort: a later verify asks again.
    await provider.verify(row.providerDomainId).catch((error) => deps.logger.warn({ err: error, domainId: row.id }, 'provider domain verify failed'));
  }
  return updated;
}

/**
 * emailDomain.verify: asks DNS now (the `DNS_SERVERS` resolvers when set) and returns the domain with each record's
 * status and the domain's: `verified` when every required record matches and the provider agrees (SES has its own
 * verdict), `failed` when the provider says so or still not 72 h after it was added, else as it was. A test key (`mode`) may not verify a domain provisioned at a real provider (403): the
 * verification is also sent to that provider.
 * @example const domain = await verifyEmailDomain(deps, orgId, 'dom_...');
 */
export async function verifyEmailDomain(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<EmailDomain> {
  const row = await findEmailDomain(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, row.provider, `Email domain ${row.name}`);
  return toEmailDomain(await checkDomain(deps, row, createDnsResolver(deps.config)));
}

/**
 * The periodic re-check of pending domains (the send-worker runs it as a job scheduler). Claims up to `batchSize`
 * pending domains not checked for `minIntervalMs`, marking them checked in the same statement with
 * `FOR UPDATE SKIP LOCKED` so replicas never take the same ones, then checks them a few at a time.
 * @returns how many were checked, and how many became verified or failed
 * @example await recheckPendingDomains(deps); // every few minutes
 */
export async function recheckPendingDomains(
  deps: Deps,
  options: { batchSize?: number; minIntervalMs?: number; concurrency?: number } = {},
): Promise<{ checked: number; verified: number; failed: number }> {
  const batchSize = options.batchSize ?? 100;
  const cutoff = new Date(deps.now().getTime() - (options.minIntervalMs ?? 5 * 60 * 1000));
  const claimed = await claimPendingEmailDomains(deps.db, cutoff, batchSize, deps.now());
  if (claimed.length === 0) return { checked: 0, verified: 0, failed: 0 };
  const rows = await findEmailDomainsByIds(
    deps.db,
    claimed.map((c) => c.id),
  );
  const resolver = createDnsResolver(deps.config);
  const result = { checked: 0, verified: 0, failed: 0 };
  const queue = [...rows];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      try {
        const after = await checkDomain(deps, row, resolver);
        result.checked += 1;
        if (after.status === 'verified') result.verified += 1;
        if (after.status === 'failed') result.failed += 1;
      } catch (error) {
        deps.logger.warn({ err: error, domainId: row.id }, 'domain re-check failed; the next run tries again');
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 5 }, worker));
  return result;
}
