import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refusalOf, type AddressPolicy } from './address-policy.ts';

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Resolves a host name to every address it has. Injectable so tests can play DNS (rebinding, mixed answers). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export type UrlPolicy = AddressPolicy & { requireHttps: boolean; resolve?: Resolver };

/** A webhook URL that may not be used; `message` is fit for the API caller (it names the field). */
export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** A checked target: the URL and the addresses it resolved to, every one allowed. Dial these, never the name again. */
export type CheckedTarget = { url: URL; hostname: string; addresses: ResolvedAddress[] };

/**
 * Parses and checks a webhook URL: http(s) (https when `requireHttps`), a host, no credentials; the host resolved
 * and EVERY address allowed by the address policy (one bad address refuses the URL, so a mixed DNS answer cannot
 * smuggle an internal one in). Throws UnsafeUrlError.
 * @example const target = await checkWebhookUrl('https://example.com/hook', { allowLoopback: false, requireHttps: true });
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('url: must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeUrlError('url: must use http or https');
  if (policy.requireHttps && url.protocol !== 'https:') throw new UnsafeUrlError('url: must use https');
  if (!url.hostname) throw new UnsafeUrlError('url: must have a host');
  if (url.username || url.password) throw new UnsafeUrlError('url: must not contain credentials');

  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(hostname);
    } catch {
      throw new UnsafeUrlError(`url: the host ${hostname} does not resolve`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`url: the host ${hostname} does not resolve`);
  }
  for (const { address } of addresses) {
    const refusal = refusalOf(address, policy);
    if (refusal) throw new UnsafeUrlError(`url: ${hostname} resolves to a non-public address (${refusal})`);
  }
  return { url, hostname, addresses };
}
