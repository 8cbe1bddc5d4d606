import { promises as dns } from 'node:dns';
import type { Config } from '@tidings/config';
import type { DnsRecord } from '@tidings/contracts';

export type DnsRecordStatus = DnsRecord['status'];
type Answer = { kind: 'values'; values: string[] } | { kind: 'absent' } | { kind: 'unknown' };

/** Codes meaning "the name has no such record": the owner has not published it (yet). */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);
const normalize = (value: string) => value.replace(/\.$/, '').replace(/\s+/g, '').toLowerCase();
/** Base64 keys are case-sensitive; only the spaces a DNS host may insert are ignored. */
const withoutSpaces = (value: string) => value.replace(/\s+/g, '');

/**
 * A resolver that asks `DNS_SERVERS` (`host:port,...`) when set, else the system's resolvers.
 * @example const resolver = createDnsResolver(deps.config); await resolver.resolveTxt('_dmarc.example.com');
 */
export function createDnsResolver(config: Pick<Config, 'dnsServers'>): dns.Resolver {
  const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
  if (config.dnsServers?.length) resolver.setServers(config.dnsServers);
  return resolver;
}

async function lookUp(resolver: dns.Resolver, record: Pick<DnsRecord, 'type' | 'name'>): Promise<Answer> {
  try {
    if (record.type === 'TXT') return { kind: 'values', values: (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join('')) };
    if (record.type === 'MX') return { kind: 'values', values: (await resolver.resolveMx(record.name)).map((mx) => mx.exchange) };
    return { kind: 'values', values: await resolver.resolveCname(record.name) };
  } catch (error) {
    // A timeout or SERVFAIL says nothing about the record: the caller keeps its previous status.
    return ABSENT.has((error as NodeJS.ErrnoException).code ?? '') ? { kind: 'absent' } : { kind: 'unknown' };
  }
}

/**
 * Whether a published value satisfies the record: SPF and DMARC are policies the owner may extend, DKIM is the exact
 * key, host names (MX, CNAME) compare without case or final dot.
 * @example matchesRecord({ purpose: 'dmarc', value: 'v=DMARC1; p=none;' }, 'v=DMARC1; p=reject') // true
 */
export function matchesRecord(record: Pick<DnsRecord, 'purpose' | 'value'>, published: string): boolean {
  if (record.purpose === 'dkim') return withoutSpaces(published) === withoutSpaces(record.value);
  const got = normalize(published);
  if (record.purpose === 'dmarc') return got.startsWith('v=dmarc1');
  if (record.purpose === 'spf') {
    const includes = record.value
      .toLowerCase()
      .split(/\s+/)
      .filter((term) => term.startsWith('include:'));
    const terms = published.toLowerCase().trim().split(/\s+/);
    if (terms[0] !== 'v=spf1') return false;
    return includes.length > 0 ? includes.every((include) => terms.includes(include)) : got === normalize(record.value);
  }
  return got === normalize(record.value);
}

/**
 * Asks DNS for every record at once and returns each one's status: `verified` when a published value matches,
 * `failed` when the name has records of that type but none matches, `pending` when it has none, and the previous
 * status when DNS could not answer.
 * @example const statuses = await checkDnsRecords(resolver, domain.records);
 */
export async function checkDnsRecords(resolver: dns.Resolver, records: DnsRecord[]): Promise<DnsRecordStatus[]> {
  const answers = await Promise.all(records.map((record) => lookUp(resolver, record)));
  return answers.map((answer, i) => {
    const record = records[i]!;
    if (answer.kind === 'unknown') return record.status;
    if (answer.kind === 'absent' || answer.values.length === 0) return 'pending';
    return answer.values.some((value) => matchesRecord(record, value)) ? 'verified' : 'failed';
  });
}
