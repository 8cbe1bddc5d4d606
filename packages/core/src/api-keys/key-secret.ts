import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyMode } from '@tidings/providers';

export type { KeyMode } from '@tidings/providers';

/** A new secret key: `sk_live_` or `sk_test_` and 32 random URL-safe characters (192 bits). */
export function generateKey(mode: KeyMode): string {
  return `sk_${mode}_${randomBytes(24).toString('base64url')}`;
}

/** The SHA-256 of a key, hex: the only form in which keys are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The first 12 characters, shown in lists so a person can tell keys apart. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

/** Which mode a presented key claims, or null when it is not shaped like one of ours. */
export function modeOfKey(key: string): KeyMode | null {
  const match = /^sk_(live|test)_[A-Za-z0-9_-]{32}$/.exec(key);
  return match ? (match[1] as KeyMode) : null;
}

/** Compares two hex digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
