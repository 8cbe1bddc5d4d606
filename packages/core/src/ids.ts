import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

// ulid's own source of randomness asks the system for one byte per character (16 calls per new millisecond): the
// send-worker's ids came to over 1% of its CPU. The same cryptographic bytes, fetched 4 KiB at a time.
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomFraction(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]! / 256;
}

const ulid = monotonicFactory(randomFraction);

export type IdPrefix = 'org' | 'usr' | 'key' | 'msg' | 'con' | 'tpl' | 'whk' | 'evt' | 'seg' | 'dom' | 'pn' | 'dlv' | 'ses' | 'inv' | 'brd' | 'att' | 'aud' | 'pwr' | 'top' | 'ver';

/**
 * A new opaque id with its type prefix; time-ordered, so ids sort roughly by creation.
 * @example newId('msg') // 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V'
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/**
 * The bound below which every id of `prefix` made before `at` sorts (a ULID starts with its time), so an index on the
 * id finds them by range.
 * @example idsBefore('evt', new Date('2026-08-27T00:00:00Z')) // 'evt_01M1088C00'
 */
export function idsBefore(prefix: IdPrefix, at: Date): string {
  return `${prefix}_${encodeTime(at.getTime(), 10)}`;
}
