import { createHmac, randomBytes } from 'node:crypto';

/** What stands for the code in a live message's stored body and wherever it is read back. */
export const CODE_MASK = '******';

/**
 * Fresh random bytes (crypto) for a verification: each send's code is derived from them, so the code itself is never
 * stored. Whoever holds the secret and the row could equally try the million codes against the keyed hash; nobody
 * without the secret can do either.
 */
export function newCodeSeed(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The code of a verification's `sendNumber`-th message: `length` decimal digits from HMAC-SHA256(secret, seed and
 * send), uniform enough (64 bits reduced modulo at most 10^10). The send-worker derives the same code at hand-off.
 * @example codeOf(secret, { id: 'ver_1', codeSeed: 'abc', codeLength: 6 }, 1) // '492817'
 */
export function codeOf(secret: string, verification: { id: string; codeSeed: string; codeLength: number }, sendNumber: number): string {
  const digest = createHmac('sha256', secret).update(`verification-code:${verification.id}:${sendNumber}:${verification.codeSeed}`).digest();
  const value = digest.readBigUInt64BE(0) % 10n ** BigInt(verification.codeLength);
  return value.toString().padStart(verification.codeLength, '0');
}

/**
 * The keyed hash a code is stored and checked as: HMAC-SHA256(secret, id and code), 64 hex digits. Keyed, so the row
 * alone does not give the code away; bound to the id, so one verification's hash says nothing of another's.
 * @example codeHashOf(secret, 'ver_1', '492817')
 */
export function codeHashOf(secret: string, verificationId: string, code: string): string {
  return createHmac('sha256', secret).update(`verification-check:${verificationId}:${code}`).digest('hex');
}

/**
 * `text` with every occurrence of `placeholder` replaced by `value` (the code, or the mask).
 * @example fillCode('Your code is {c}', '{c}', '123456')
 */
export function fillCode<T extends string | null | undefined>(text: T, placeholder: string, value: string): T {
  return (typeof text === 'string' ? text.split(placeholder).join(value) : text) as T;
}
