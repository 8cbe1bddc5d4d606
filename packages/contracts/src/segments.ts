import { Timestamp } from './common.ts';
import { storableText, unstorableText } from './common.ts';
import { z } from './z.ts';

export const SEGMENT_MAX_DEPTH = 5;
const MAX_CONDITIONS = 200;
const MAX_IN_VALUES = 100;
/**
 * Characters the `contains` and `startsWith` values of one criteria may total: each is a pattern match over every
 * contact, and 200 of ~950 characters over 12,000 contacts took minutes of Postgres time.
 */
export const SEGMENT_MAX_PATTERN_CHARS = 2_000;

export const SegmentOp = z.enum(['eq', 'neq', 'contains', 'startsWith', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists', 'in']);
export type SegmentOp = z.infer<typeof SegmentOp>;

const STRING_FIELDS = ['email', 'phone', 'firstName', 'lastName'] as const;
const BOOLEAN_FIELDS = ['emailSubscribed', 'smsSubscribed'] as const;
export const SEGMENT_FIELDS = [...STRING_FIELDS, ...BOOLEAN_FIELDS, 'createdAt'] as const;
const ATTRIBUTE_FIELD = /^attributes\.([A-Za-z_][A-Za-z0-9_-]{0,63})$/;

export type ConditionScalar = string | number | boolean;
export type SegmentCondition = { field: string; op: SegmentOp; value?: ConditionScalar | ConditionScalar[] };
export type SegmentCriteria = { all: SegmentNode[] } | { any: SegmentNode[] };
export type SegmentNode = SegmentCriteria | SegmentCondition;

/**
 * What a field holds, which decides the operators and value types it takes.
 * @example fieldKind('attributes.plan') // 'attribute'; fieldKind('nickname') // null
 */
export function fieldKind(field: string): 'string' | 'boolean' | 'date' | 'attribute' | null {
  if ((STRING_FIELDS as readonly string[]).includes(field)) return 'string';
  if ((BOOLEAN_FIELDS as readonly string[]).includes(field)) return 'boolean';
  if (field === 'createdAt') return 'date';
  return ATTRIBUTE_FIELD.test(field) ? 'attribute' : null;
}

/**
 * The attribute key of `attributes.<key>`.
 * @example attributeKey('attributes.plan') // 'plan'
 */
export function attributeKey(field: string): string | null {
  return ATTRIBUTE_FIELD.exec(field)?.[1] ?? null;
}

const ISO_DATE = /^([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;

/**
 * An ISO-8601 date or date-time (UTC when it has no offset), as criteria compare dates: the same rule as the
 * database's `tidings_try_timestamptz`, so a value accepted here never fails there. Returns the instant or null.
 * @example parseIsoDate('2024-02-29') // 2024-02-29T00:00:00.000Z; parseIsoDate('2023-02-29') // null
 */
export function parseIsoDate(value: string): Date | null {
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null; // 30 February
  const [time, zone] = [m[4], m[8]];
  const normalized = !time ? `${value}T00:00:00Z` : !zone ? `${value}Z` : zone.length === 5 ? `${value.slice(0, -2)}:${value.slice(-2)}` : value;
  const instant = new Date(normalized);
  return Number.isNaN(instant.getTime()) ? null : instant;
}

const isScalar = (v: unknown): v is ConditionScalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isDateString = (v: unknown) => typeof v === 'string' && parseIsoDate(v) !== null;
const isText = (v: unknown, min = 0): v is string => typeof v === 'string' && v.length >= min && v.length <= 1000 && unstorableText(v) === null;

/** The value an operator needs on a kind of field, or null when the pair is not allowed. */
function valueRule(kind: NonNullable<ReturnType<typeof fieldKind>>, op: SegmentOp): { check: (v: unknown) => boolean; needs: string } | null {
  if (op === 'exists' || op === 'notExists') {
    return kind === 'string' || kind === 'attribute' ? { check: (v) => v === undefined, needs: 'no value' } : null;
  }
  const scalar = {
    string: { check: (v: unknown) => isText(v), needs: 'a string (up to 1,000 characters, no NUL or lone surrogate)' },
    boolean: { check: (v: unknown) => typeof v === 'boolean', needs: 'true or false' },
    date: { check: isDateString, needs: 'an ISO-8601 date or date-time' },
    attribute: { check: (v: unknown) => isScalar(v) && (typeof v !== 'string' || isText(v)), needs: 'a string, number or boolean' },
  }[kind];
  switch (op) {
    case 'eq':
    case 'neq':
      return scalar;
    case 'in':
      if (kind === 'boolean' || kind === 'date') return null;
      return {
        check: (v) => Array.isArray(v) && v.length >= 1 && v.length <= MAX_IN_VALUES && v.every(scalar.check),
        needs: `a list of 1 to ${MAX_IN_VALUES} values, each ${scalar.needs}`,
      };
    case 'contains':
    case 'startsWith':
      return kind === 'string' || kind === 'attribute' ? { check: (v) => isText(v, 1), needs: 'a non-empty string' } : null;
    default: // gt, gte, lt, lte
      if (kind === 'date') return scalar;
      if (kind === 'attribute') {
        return { check: (v) => (typeof v === 'number' && Number.isFinite(v)) || isDateString(v), needs: 'a number or an ISO-8601 date or date-time' };
      }
      return null;
  }
}

export const SegmentConditionSchema = z
  .strictObject({
    field: z.string().openapi({ description: 'email, phone, firstName, lastName, emailSubscribed, smsSubscribed, createdAt or attributes.<key>' }),
    op: SegmentOp,
    value: z.unknown().optional().openapi({ description: 'A string, number, boolean or ISO date; a list for `in`; absent for exists/notExists.' }),
  })
  .superRefine((c, ctx) => {
    const kind = fieldKind(c.field);
    if (!kind) {
      ctx.addIssue({ code: 'custom', path: ['field'], message: `unknown field "${c.field.slice(0, 80)}"; use ${SEGMENT_FIELDS.join(', ')} or attributes.<key>` });
      return;
    }
    const rule = valueRule(kind, c.op);
    if (!rule) ctx.addIssue({ code: 'custom', path: ['op'], message: `${c.op} does not apply to ${c.field}` });
    else if (!rule.check(c.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: `${c.op} on ${c.field} needs ${rule.needs}` });
  })
  .openapi('SegmentCondition');

type Ctx = z.core.$RefinementCtx;

function checkGroup(value: unknown, path: (string | number)[], depth: number, ctx: Ctx, budget: { conditions: number; patternChars: number }): void {
  const keys = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const joiner = keys.find((k) => k === 'all' || k === 'any');
  if (!joiner || keys.length !== 1) {
    ctx.addIssue({ code: 'custom', path, message: 'must be { "all": [...] } or { "any": [...] }' });
    return;
  }
  if (depth > SEGMENT_MAX_DEPTH) {
    ctx.addIssue({ code: 'custom', path, message: `groups nest at most ${SEGMENT_MAX_DEPTH} deep` });
    return;
  }
  const items = (value as Record<string, unknown>)[joiner];
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    ctx.addIssue({ code: 'custom', path: [...path, joiner], message: 'must be a list of 1 to 100 conditions or groups' });
    return;
  }
  items.forEach((item, index) => {
    const at = [...path, joiner, index];
    const isGroup = item && typeof item === 'object' && ('all' in item || 'any' in item);
    if (isGroup) {
      checkGroup(item, at, depth + 1, ctx, budget);
      return;
    }
    budget.conditions += 1;
    if (budget.conditions === MAX_CONDITIONS + 1) ctx.addIssue({ code: 'custom', path: at, message: `at most ${MAX_CONDITIONS} conditions` });
    const { op, value: text } = (item ?? {}) as { op?: unknown; value?: unknown }; // null is refused below, not read
    if ((op === 'contains' || op === 'startsWith') && typeof text === 'string') {
      const before = budget.patternChars;
      budget.patternChars += text.length;
      if (before <= SEGMENT_MAX_PATTERN_CHARS && budget.patternChars > SEGMENT_MAX_PATTERN_CHARS) {
        ctx.addIssue({
          code: 'custom',
          path: [...at, 'value'],
          message: `contains and startsWith values may total at most ${SEGMENT_MAX_PATTERN_CHARS} characters in one segment`,
        });
      }
    }
    const parsed = SegmentConditionSchema.safeParse(item);
    for (const issue of parsed.error?.issues ?? []) {
      const keysPart = issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: unknown field` : issue.message;
      ctx.addIssue({ code: 'custom', path: [...at, ...issue.path.map((p) => p as string | number)], message: keysPart });
    }
  });
}

export const SegmentCriteriaSchema = z
  .custom<SegmentCriteria>(() => true)
  .superRefine((value, ctx) => checkGroup(value, [], 1, ctx, { conditions: 0, patternChars: 0 }))
  .openapi('SegmentCriteria', {
    type: 'object',
    description:
      `Contacts matching all (or any) of the conditions; groups nest up to ${SEGMENT_MAX_DEPTH} deep, at most ${MAX_CONDITIONS} conditions, and \`contains\`/\`startsWith\` values total at most ${SEGMENT_MAX_PATTERN_CHARS} characters. String comparisons on contact ` +
      'fields ignore case; `attributes.<key>` compares typed JSON (the number 10 is not the string "10"), and gt/gte/lt/lte ' +
      'compare numbers with numbers and ISO dates with dates. `neq` and `notExists` also match contacts without the field.',
    properties: {
      all: { type: 'array', minItems: 1, maxItems: 100, items: { oneOf: [{ $ref: '#/components/schemas/SegmentCriteria' }, { $ref: '#/components/schemas/SegmentCondition' }] } },
      any: { type: 'array', minItems: 1, maxItems: 100, items: { oneOf: [{ $ref: '#/components/schemas/SegmentCriteria' }, { $ref: '#/components/schemas/SegmentCondition' }] } },
    },
    minProperties: 1,
    maxProperties: 1,
    example: {
      all: [
        { field: 'emailSubscribed', op: 'eq', value: true },
        {
          any: [
            { field: 'attributes.plan', op: 'in', value: ['pro', 'team'] },
            { field: 'attributes.seats', op: 'gte', value: 10 },
          ],
        },
      ],
    },
  });

const criteriaExample = {
  all: [
    { field: 'emailSubscribed', op: 'eq', value: true },
    {
      any: [
        { field: 'attributes.plan', op: 'in', value: ['pro', 'team'] },
        { field: 'attributes.seats', op: 'gte', value: 10 },
      ],
    },
  ],
};
const segmentExample = {
  id: 'seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'Paying customers',
  criteria: criteriaExample,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
};

export const Segment = z
  .object({
    id: z.string().openapi({ example: 'seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    criteria: SegmentCriteriaSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Segment', { example: segmentExample });
export type Segment = z.infer<typeof Segment>;

export const SegmentWithCount = Segment.extend({
  contactCount: z.number().int().openapi({
    description:
      'Contacts matching the criteria when counted (`countedAt`): at create and update, then again in the background when a read finds the count older than SEGMENT_COUNT_MAX_AGE_MS (60 s); a read never counts.',
  }),
  countedAt: Timestamp.optional().openapi({ description: 'When `contactCount` was counted.' }),
}).openapi('SegmentWithCount', { example: { ...segmentExample, contactCount: 128, countedAt: '2026-11-28T09:30:00.000Z' } });
export type SegmentWithCount = z.infer<typeof SegmentWithCount>;

export const CreateSegmentBody = z
  .strictObject({ name: storableText().trim().min(1).max(200), criteria: SegmentCriteriaSchema })
  .openapi('CreateSegmentBody', { example: { name: 'Paying customers', criteria: criteriaExample } });
export type CreateSegmentBody = z.infer<typeof CreateSegmentBody>;

export const UpdateSegmentBody = z
  .strictObject({ name: storableText().trim().min(1).max(200).optional(), criteria: SegmentCriteriaSchema.optional() })
  .refine((s) => s.name !== undefined || s.criteria !== undefined, { message: 'give name and/or criteria' })
  .openapi('UpdateSegmentBody', { example: { name: 'Paying customers (10+ seats)' } });
export type UpdateSegmentBody = z.infer<typeof UpdateSegmentBody>;
