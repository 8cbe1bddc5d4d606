import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Endpoint secrets must be readable again (we sign with them), so they are encrypted rather than hashed:
// AES-256-GCM under a key from configuration, so a database dump alone does not reveal them.
const VERSION = 'v1';

function keyOf(passphrase: string): Buffer {
  // Any configured string becomes a 32-byte key; operators can paste a long random value of any encoding.
  return createHash('sha256').update(passphrase, 'utf8').digest();
}

/**
 * Encrypts a secret for storage: `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 * @example const stored = encryptSecret('whsec_...', config.webhooks.secretKey);
 */
export function encryptSecret(plaintext: string, passphrase: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(passphrase), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * Decrypts what `encryptSecret` stored; throws when the key is wrong or the value was altered.
 * @example const secret = decryptSecret(row.secretCiphertext, config.webhooks.secretKey);
 */
export function decryptSecret(stored: string, passphrase: string): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not an encrypted webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(passphrase), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
