import { SegmentCriteriaSchema } from '@tidings/contracts';
import { compileCriteria } from './criteria.store.ts';

describe('compileCriteria', () => {
  it('binds every value the caller wrote; the SQL text holds only fixed columns and operators', () => {
    const hostile = `x'); DROP TABLE "Contact"; --`;
    const criteria = SegmentCriteriaSchema.parse({
      any: [
        { field: 'lastName', op: 'eq', value: hostile },
        { field: 'attributes.plan', op: 'contains', value: hostile },
        {
          all: [
            { field: 'attributes.seats', op: 'gte', value: 5 },
            { field: 'email', op: 'in', value: [hostile, 'a@b.c'] },
          ],
        },
      ],
    });
    const sql = compileCriteria(criteria);
    expect(sql.sql).not.toContain('DROP');
    expect(sql.sql).not.toContain('plan');
    expect(sql.values).toEqual(expect.arrayContaining([hostile.toLowerCase(), 'plan', `%${hostile}%`, 5]));
    expect(sql.text.startsWith('(lower(c."lastName") = $1 OR (CASE WHEN jsonb_typeof((c."attributes" -> $2))')).toBe(true);
  });

  it('escapes LIKE wildcards so they match literally', () => {
    const sql = compileCriteria(SegmentCriteriaSchema.parse({ all: [{ field: 'email', op: 'startsWith', value: '50%_off\\' }] }));
    expect(sql.values).toEqual(['50\\%\\_off\\\\%']);
  });

  it('numbers compare only with JSON numbers and dates only with date strings (the SQL guards the casts)', () => {
    const numeric = compileCriteria(SegmentCriteriaSchema.parse({ all: [{ field: 'attributes.seats', op: 'lt', value: 3 }] }));
    expect(numeric.text).toBe(`((CASE WHEN jsonb_typeof((c."attributes" -> $1)) = 'number' THEN (c."attributes" ->> $2)::numeric END) < $3::numeric)`);
    const dated = compileCriteria(SegmentCriteriaSchema.parse({ all: [{ field: 'attributes.since', op: 'gt', value: '2024-01-01' }] }));
    expect(dated.sql).toContain('tidings_try_timestamptz');
    expect(dated.values).toContain('2024-01-01T00:00:00.000Z');
  });
});
