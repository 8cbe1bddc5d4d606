import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt cost: N=2^15, r=8, p=1 (about 32 MiB and tens of milliseconds: slow for a guesser, fine for a sign-in).
const COST = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/**
 * Hashes a password with scrypt and a random salt; the result carries its parameters, so they can be raised later.
 * @example const stored = await hashPassword('correct horse battery'); // 'scrypt$32768$8$1$<salt>$<hash>'
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Checks a password against a stored hash in constant time. A missing or malformed hash never matches (but still
 * costs one derivation, so an unknown email answers as slowly as a wrong password).
 * @example if (!(await verifyPassword(input, user.passwordHash))) throw ...
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  const isWellFormed = parts.length === 6 && scheme === 'scrypt' && [n, r, p].every((v) => /^\d+$/.test(v ?? ''));
  if (!isWellFormed) {
    await derive(password, randomBytes(16), COST);
    return false;
  }
  const expected = Buffer.from(hash!, 'base64url');
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
