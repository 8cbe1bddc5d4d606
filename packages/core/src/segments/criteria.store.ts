import { attributeKey, fieldKind, parseIsoDate, type ConditionScalar, type SegmentCondition, type SegmentCriteria, type SegmentNode } from '@tidings/contracts';
import { Prisma } from '@tidings/db';
import { toE164 } from '../contacts/contact-fields.ts';

// Column names and operators come only from these fixed tables; every value the caller wrote is a bound parameter.
const COLUMNS: Record<string, Prisma.Sql> = {
  email: Prisma.raw('c."email"'),
  phone: Prisma.raw('c."phone"'),
  firstName: Prisma.raw('c."firstName"'),
  lastName: Prisma.raw('c."lastName"'),
  emailSubscribed: Prisma.raw('c."emailSubscribed"'),
  smsSubscribed: Prisma.raw('c."smsSubscribed"'),
  createdAt: Prisma.raw('c."createdAt"'),
};
const COMPARISONS = { gt: Prisma.raw('>'), gte: Prisma.raw('>='), lt: Prisma.raw('<'), lte: Prisma.raw('<=') } as const;

/**
 * A UTC instant as the `timestamp` (without time zone, UTC by Prisma's convention) the tables store, whatever the
 * session's time zone.
 * @example Prisma.sql`c."createdAt" > ${utcTimestamp(new Date('2026-01-01T00:00:00Z'))}`
 */
export function utcTimestamp(at: Date): Prisma.Sql {
  return Prisma.sql`(${at.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
}

/** A LIKE pattern matching `value` literally (its %, _ and \ escaped), then `%` where wanted. */
function likePattern(value: string, op: 'contains' | 'startsWith'): string {
  const literal = value.replace(/[\\%_]/g, (c) => `\\${c}`);
  return op === 'contains' ? `%${literal}%` : `${literal}%`;
}

/** Contact-field strings compare case-insensitively; a phone value is first read as E.164 where it can be. */
function stringValue(field: string, value: ConditionScalar): string {
  const text = String(value);
  return (field === 'phone' ? (toE164(text) ?? text) : text).toLowerCase();
}

function columnCondition(c: SegmentCondition): Prisma.Sql {
  const column = COLUMNS[c.field]!;
  const kind = fieldKind(c.field);
  if (c.op === 'exists') return Prisma.sql`${column} IS NOT NULL`;
  if (c.op === 'notExists') return Prisma.sql`${column} IS NULL`;
  if (kind === 'boolean') {
    return c.op === 'eq' ? Prisma.sql`${column} = ${c.value as boolean}` : Prisma.sql`${column} <> ${c.value as boolean}`;
  }
  if (kind === 'date') {
    const at = utcTimestamp(parseIsoDate(c.value as string)!);
    if (c.op === 'eq') return Prisma.sql`${column} = ${at}`;
    if (c.op === 'neq') return Prisma.sql`${column} <> ${at}`;
    return Prisma.sql`${column} ${COMPARISONS[c.op as keyof typeof COMPARISONS]} ${at}`;
  }
  const lowered = Prisma.sql`lower(${column})`;
  switch (c.op) {
    case 'eq':
      return Prisma.sql`${lowered} = ${stringValue(c.field, c.value as string)}`;
    case 'neq':
      return Prisma.sql`${lowered} IS DISTINCT FROM ${stringValue(c.field, c.value as string)}`;
    case 'in':
      return Prisma.sql`${lowered} IN (${Prisma.join((c.value as string[]).map((v) => stringValue(c.field, v)))})`;
    case 'contains':
    case 'startsWith':
      return Prisma.sql`${column} ILIKE ${likePattern(c.value as string, c.op)}`;
    default:
      throw new Error(`criteria validation let ${c.op} on ${c.field} through`);
  }
}

function attributeCondition(c: SegmentCondition): Prisma.Sql {
  const key = attributeKey(c.field)!;
  const json = Prisma.sql`(c."attributes" -> ${key})`;
  // Typed JSON: the number 10 and the string "10" are different values.
  const asJson = (v: ConditionScalar) => Prisma.sql`${JSON.stringify(v)}::jsonb`;
  // CASE, not AND: Postgres may evaluate AND operands in any order, and a cast of the wrong type would fail the query.
  const asText = Prisma.sql`(CASE WHEN jsonb_typeof(${json}) = 'string' THEN c."attributes" ->> ${key} END)`;
  switch (c.op) {
    case 'exists':
      return Prisma.sql`${json} IS NOT NULL`;
    case 'notExists':
      return Prisma.sql`${json} IS NULL`;
    case 'eq':
      return Prisma.sql`${json} = ${asJson(c.value as ConditionScalar)}`;
    case 'neq':
      return Prisma.sql`${json} IS DISTINCT FROM ${asJson(c.value as ConditionScalar)}`;
    case 'in':
      return Prisma.sql`${json} IN (${Prisma.join((c.value as ConditionScalar[]).map(asJson))})`;
    case 'contains':
    case 'startsWith':
      return Prisma.sql`${asText} ILIKE ${likePattern(c.value as string, c.op)}`;
    default: {
      const operator = COMPARISONS[c.op as keyof typeof COMPARISONS];
      if (typeof c.value === 'number') {
        const asNumber = Prisma.sql`(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (c."attributes" ->> ${key})::numeric END)`;
        return Prisma.sql`${asNumber} ${operator} ${c.value}::numeric`;
      }
      const at = parseIsoDate(c.value as string)!;
      return Prisma.sql`tidings_try_timestamptz(${asText}) ${operator} ${at.toISOString()}::timestamptz`;
    }
  }
}

function nodeSql(node: SegmentNode): Prisma.Sql {
  if ('all' in node) return Prisma.sql`(${Prisma.join(node.all.map(nodeSql), ' AND ')})`;
  if ('any' in node) return Prisma.sql`(${Prisma.join(node.any.map(nodeSql), ' OR ')})`;
  return fieldKind(node.field) === 'attribute' ? attributeCondition(node) : columnCondition(node);
}

/**
 * Compiles validated criteria (see `SegmentCriteriaSchema`) into a parameterised SQL condition over contacts aliased
 * `c`. Nothing the caller wrote reaches the SQL text: field names select fixed columns and every value is bound.
 * @example
 * const where = compileCriteria({ all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] });
 * await db.$queryRaw`SELECT count(*) FROM "Contact" c WHERE c."orgId" = ${orgId} AND ${where}`;
 */
export function compileCriteria(criteria: SegmentCriteria): Prisma.Sql {
  return nodeSql(criteria);
}
