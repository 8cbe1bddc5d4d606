import { AppError } from './errors.ts';
import { decodeCursor, encodeCursor, olderThan } from './pagination.ts';

describe('cursors', () => {
  it('round-trips the keyset position', () => {
    const row = { createdAt: new Date('2026-11-23T08:00:00.123Z'), id: 'key_01ABC' };
    expect(decodeCursor(encodeCursor(row))).toEqual(row);
  });

  it('refuses a string that is not a cursor', () => {
    expect(() => decodeCursor('garbage')).toThrow(AppError);
    expect(() => decodeCursor(Buffer.from('not-a-date|id').toString('base64url'))).toThrow(/cursor/);
  });

  it('builds "older than" for createdAt desc, id desc', () => {
    const createdAt = new Date('2026-01-01T00:00:00Z');
    expect(olderThan(encodeCursor({ createdAt, id: 'x_2' }))).toEqual({
      createdAt: { lte: createdAt },
      OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: 'x_2' } }],
    });
    expect(olderThan(undefined)).toEqual({});
  });
});
