import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export type IdPrefix = 'org' | 'usr' | 'key' | 'msg' | 'con' | 'tpl' | 'whk' | 'evt' | 'seg' | 'dom' | 'pn' | 'dlv' | 'ses' | 'inv' | 'brd' | 'att';

/**
 * A new opaque id with its type prefix; time-ordered, so ids sort roughly by creation.
 * @example newId('msg') // 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V'
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
