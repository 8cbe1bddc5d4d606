import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { AppError } from '../errors.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Normalizes a sending domain: lower-cased, punycode, no trailing dot. It must be a registrable domain under a
 * public suffix (`example.com`, `example.co.uk`) or a subdomain of one (`mail.example.com`); schemes, paths,
 * ports, IP addresses and bare public suffixes (`co.uk`) are BAD_REQUEST naming the field.
 * @example normalizeDomainName('Example.COM.') // 'example.com'
 */
export function normalizeDomainName(input: string): string {
  const trimmed = input.trim().replace(/\.$/, '');
  const invalid = (why: string) => new AppError('BAD_REQUEST', `name: ${why}`);
  if (/[/:@?#\s]/.test(trimmed)) throw invalid('give the bare domain, such as example.com, without scheme, path, port or address');
  const name = domainToASCII(trimmed.toLowerCase());
  if (!name || name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) throw invalid('is not a valid domain name');
  const info = parse(name);
  if (info.isIp) throw invalid('must be a domain name, not an IP address');
  if (!info.isIcann || !info.domain || !info.publicSuffix || name === info.publicSuffix) {
    throw invalid('must be a registrable domain under a public suffix, such as example.com');
  }
  return name;
}
