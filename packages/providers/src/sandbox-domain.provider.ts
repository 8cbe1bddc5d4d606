import { createHash, generateKeyPairSync } from 'node:crypto';
import { dmarcRecord, type DomainProvider } from './domain-provider.ts';

/** The mail host the sandbox's return-path and SPF records point at. */
export const SANDBOX_MAIL_HOST = 'sandbox.tidings.test';

/**
 * A local provider for domains: nothing leaves the machine, but the records are the ones a real provider would ask
 * for (a return-path MX and SPF on `send.<domain>`, a DKIM public key, DMARC), so DNS verification works the same.
 * @example const { records } = await createSandboxDomainProvider().create('example.com');
 */
export function createSandboxDomainProvider(): DomainProvider {
  return {
    name: 'sandbox',
    async create(domainName) {
      // A real 1024-bit key, as Resend publishes: the DKIM value is what a DNS host will be given to paste.
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
      const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      const providerDomainId = `sbx_dom_${createHash('sha256').update(`${domainName}:${p}`).digest('hex').slice(0, 24)}`;
      return {
        providerDomainId,
        records: [
          { purpose: 'returnPath', type: 'MX', name: `send.${domainName}`, value: `feedback-smtp.${SANDBOX_MAIL_HOST}`, priority: 10, required: true },
          { purpose: 'spf', type: 'TXT', name: `send.${domainName}`, value: `v=spf1 include:spf.${SANDBOX_MAIL_HOST} ~all`, required: true },
          { purpose: 'dkim', type: 'TXT', name: `tidings._domainkey.${domainName}`, value: `p=${p}`, required: true },
          dmarcRecord(domainName),
        ],
      };
    },
    async delete() {},
    async verify() {},
  };
}
