import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Config } from '@tidings/config';

// scrypt with r=8, p=1 and N=2^cost, the cost from PASSWORD_HASH_COST (15 by default and at least that in production:
// about 32 MiB and tens of milliseconds, slow for a guesser, fine for a sign-in; the test suites lower it).
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 64;
// enough for the highest cost the configuration takes (2^16: 64 MiB) and scrypt's own overhead
const MAX_MEMORY = 128 * 1024 * 1024;

type Cost = { N: number; r: number; p: number };
/** The scrypt parameters new hashes take, from the configuration's `passwordHashCost` (log2 of N). */
const costOf = (config: Pick<Config, 'passwordHashCost'>): Cost => ({ N: 2 ** config.passwordHashCost, r: BLOCK_SIZE, p: PARALLELISM });

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/**
 * Hashes a password with scrypt at the configured cost and a random salt; the result carries its parameters, so a
 * hash made at one cost verifies under any other, and the cost can be raised later.
 * @example const stored = await hashPassword('correct horse battery', config); // 'scrypt$32768$8$1$<salt>$<hash>'
 */
export async function hashPassword(password: string, config: Pick<Config, 'passwordHashCost'>): Promise<string> {
  const salt = randomBytes(16);
  const cost = costOf(config);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Checks a password against a stored hash in constant time, with the parameters the hash carries. A missing or
 * malformed hash never matches (but still costs one derivation at the configured cost, so an unknown email answers as
 * slowly as a wrong password).
 * @example if (!(await verifyPassword(input, user.passwordHash, config))) throw ...
 */
export async function verifyPassword(password: string, stored: string | null | undefined, config: Pick<Config, 'passwordHashCost'>): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  const isWellFormed = parts.length === 6 && scheme === 'scrypt' && [n, r, p].every((v) => /^\d+$/.test(v ?? ''));
  if (!isWellFormed) {
    await derive(password, randomBytes(16), costOf(config));
    return false;
  }
  const expected = Buffer.from(hash!, 'base64url');
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
