import ipaddr from 'ipaddr.js';

/** Public addresses that still answer as cloud metadata or platform services inside a VM. */
const METADATA_ADDRESSES = new Set(['168.63.129.16', '100.100.100.200', '169.254.169.254', 'fd00:ec2::254']);

export type AddressPolicy = { allowLoopback: boolean };

// IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): never a real destination, and a stack that still honours
// it reaches the IPv4 address inside, so the whole ::/96 is refused (but for :: and ::1, judged as themselves).
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an address may not be dialled for a webhook, or null when it may. Only global unicast passes (an allowlist,
 * so ranges we did not think of are refused too); IPv4-mapped IPv6 is judged as the IPv4 address it carries; every
 * other IPv6 form that embeds an IPv4 address is refused whole: IPv4-compatible ::/96, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32.
 * `allowLoopback` lets loopback (and only loopback) through, for local development and tests.
 * @example refusalOf('10.0.0.1', { allowLoopback: false }) // 'private'
 */
export function refusalOf(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) {
    const own = parsed.range();
    if (own !== 'loopback' && own !== 'unspecified') return 'ipv4Compatible';
  }
  const normalized = parsed.toString();
  if (METADATA_ADDRESSES.has(normalized)) return 'cloud metadata';
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  return range;
}
