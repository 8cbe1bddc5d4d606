import { encodeTime, monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export type IdPrefix = 'org' | 'usr' | 'key' | 'msg' | 'con' | 'tpl' | 'whk' | 'evt' | 'seg' | 'dom' | 'pn' | 'dlv' | 'ses' | 'inv' | 'brd' | 'att';

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
