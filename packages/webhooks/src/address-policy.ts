import ipaddr from 'ipaddr.js';

/** Public addresses that still answer as cloud metadata or platform services inside a VM. */
const METADATA_ADDRESSES = new Set(['168.63.129.16', '100.100.100.200', '169.254.169.254', 'fd00:ec2::254']);

export type AddressPolicy = { allowLoopback: boolean };

/**
 * Why an address may not be dialled for a webhook, or null when it may. Only global unicast passes (an allowlist,
 * so ranges we did not think of are refused too); IPv4-mapped IPv6 is judged as the IPv4 address it carries.
 * `allowLoopback` lets loopback (and only loopback) through, for local development and tests.
 * @example refusalOf('10.0.0.1', { allowLoopback: false }) // 'private'
 */
export function refusalOf(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.process(address);
  const normalized = parsed.toString();
  if (METADATA_ADDRESSES.has(normalized)) return 'cloud metadata';
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  return range;
}
