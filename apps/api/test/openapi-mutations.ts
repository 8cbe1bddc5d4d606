import { sample } from 'openapi-sampler';

/** A small seeded generator (mulberry32): the same seed replays the same requests. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}
export type Random = ReturnType<typeof seededRandom>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;
/** Where a documented operation is served: below /v1, or below its own server (the Resend-compatible ones at the root). */
export const prefixOf = (op: { servers?: { url: string }[] }) => (op.servers?.[0]?.url ?? '/v1').replace(/\/$/, '');

export type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };
export type OpenApiOperation = {
  operationId: string;
  tags?: string[];
  servers?: { url: string }[];
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

/** Values each breaking one rule a storable, well-typed field must keep. */
const POISON: readonly Json[] = [
  'a\u0000b',
  '\u0000',
  'a\ud800b',
  '\udfff',
  '0000-01-01T00:00:00Z',
  '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '2026-02-30T25:61:00Z',
  1e308,
  -1e308,
  2 ** 53 + 1,
  -1,
  0,
  1e300,
  3_000_000_000,
  0.5,
  true,
  null,
  '',
  ' ',
  'x'.repeat(70_000),
  '{{ x }}{% for i in (1..100000) %}{% endfor %}',
  [],
  {},
  ['a\u0000'],
  { 'a\u0000': 'b' },
  { nested: { deeper: ['\ud800'] } },
];

function mutateValue(value: Json, random: Random): Json {
  const roll = random.next();
  if (roll < 0.6) return random.pick(POISON);
  // the wrong type for what was there
  if (typeof value === 'string') return random.pick([12345, false, [value], { value }]);
  if (typeof value === 'number' || typeof value === 'boolean') return random.pick([String(value), [value], { value }]);
  if (Array.isArray(value)) return random.pick([{ 0: value[0] ?? null }, 'list', value.concat(value, value, value)]);
  return random.pick(['object', [value], 1]);
}

type Slot = { parent: Json[] | { [key: string]: Json } | null; key: string | number };

/** Every place in `value` a mutation can land: the value itself, each property and each array item, at any depth. */
function slotsOf(value: Json, parent: Slot['parent'] = null, key: string | number = '', into: Slot[] = []): Slot[] {
  into.push({ parent, key });
  if (Array.isArray(value)) for (const [index, item] of value.entries()) slotsOf(item, value, index, into);
  else if (value && typeof value === 'object') for (const [name, item] of Object.entries(value)) slotsOf(item, value, name, into);
  return into;
}

/**
 * `valid` with one to three mutations: a value replaced by poison (NUL, lone surrogates, out-of-range dates, huge
 * numbers, empty, huge text) or by the wrong type, or an extra field added to an object.
 */
export function mutate(valid: Json, random: Random): Json {
  let root = structuredClone(valid);
  const times = 1 + Math.floor(random.next() * 3);
  for (let i = 0; i < times; i++) {
    const slot = random.pick(slotsOf(root));
    const current = slot.parent === null ? root : (slot.parent as Record<string | number, Json>)[slot.key]!;
    let replacement: Json;
    if (current && typeof current === 'object' && !Array.isArray(current) && random.next() < 0.3) {
      replacement = { ...current, [random.pick(['extra', 'orgId', '__proto__x', 'id', 'a\u0000'])]: random.pick(POISON) };
    } else {
      replacement = mutateValue(current, random);
    }
    // a copy: the poison values are shared, and a later mutation may write inside what was put here
    replacement = structuredClone(replacement);
    if (slot.parent === null) root = replacement;
    else (slot.parent as Record<string | number, Json>)[slot.key] = replacement;
  }
  return root;
}

/** The poison every value of a valid request gets in turn: the classes that reach Postgres as errors if let through. */
const SWEEP: readonly Json[] = ['a\u0000b', 'a\ud800b', '0000-01-01T00:00:00Z', 1e308, -1, 'x'.repeat(70_000)];

/**
 * Each value of `valid` (at any depth) replaced in turn by each value of SWEEP and by a value of the wrong type,
 * and each object given a key with NUL: one mutation per request, so nothing else in it is wrong.
 */
export function sweepMutations(valid: Json): Json[] {
  const out: Json[] = [];
  const count = slotsOf(valid).length;
  for (let index = 1; index < count; index++) {
    const current = (() => {
      const slot = slotsOf(valid)[index]!;
      return (slot.parent as Record<string | number, Json>)[slot.key]!;
    })();
    const wrongType: Json = typeof current === 'string' ? 12345 : typeof current === 'number' || typeof current === 'boolean' ? 'text' : 'text';
    for (const poison of [...SWEEP, wrongType]) {
      const copy = structuredClone(valid);
      const slot = slotsOf(copy)[index]!;
      (slot.parent as Record<string | number, Json>)[slot.key] = poison;
      out.push(copy);
    }
    if (current && typeof current === 'object' && !Array.isArray(current)) {
      const copy = structuredClone(valid);
      const slot = slotsOf(copy)[index]!;
      (slot.parent as Record<string | number, Json>)[slot.key] = { ...current, 'a\u0000': 'b', extraField: 1 };
      out.push(copy);
    }
  }
  if (valid && typeof valid === 'object' && !Array.isArray(valid)) out.push({ ...valid, extraField: 'x' }, { ...valid, 'k\u0000': 'v' });
  return out;
}

/** Each query value in turn replaced by each string of SWEEP (and forged cursors), one per request. */
export function sweepQueries(valid: Record<string, string>): Record<string, string>[] {
  const names = [...new Set([...Object.keys(valid), 'cursor'])];
  const poisons = [
    ...SWEEP.map(String),
    Buffer.from('0000-01-01T00:00:00.000Z|x').toString('base64url'),
    Buffer.from('2026-01-01T00:00:00.000Z|\u0000').toString('base64url'),
    Buffer.from('2026-01-01T00:00:00.000Z|1e300').toString('base64url'),
  ];
  return names.flatMap((name) => poisons.map((poison) => ({ ...valid, [name]: poison })));
}

/** A valid body for the operation, from its schema's examples and types (null when it takes none). */
export function sampleBody(document: OpenApiDocument, operation: OpenApiOperation): Json | null {
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  return schema ? (sample(schema as never, { skipReadOnly: true, quiet: true }, document) as Json) : null;
}

/** Valid query values for the operation's query parameters, as strings. */
export function sampleQuery(document: OpenApiDocument, operation: OpenApiOperation): Record<string, string> {
  const query: Record<string, string> = {};
  for (const parameter of operation.parameters ?? []) {
    // a sampled cursor is not one of ours: it would make every request a 400 before anything else is looked at
    if (parameter.in !== 'query' || !parameter.schema || parameter.name === 'cursor') continue;
    const value = sample(parameter.schema as never, { quiet: true }, document);
    if (value !== undefined && value !== null) query[parameter.name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return query;
}

/** Query values with one or two of them poisoned, or an unknown one added. */
export function mutateQuery(valid: Record<string, string>, random: Random): Record<string, string> {
  const query = { ...valid };
  const names = [...Object.keys(query), 'limit', 'offset', 'cursor', 'createdAfter', 'createdBefore', 'unknown'];
  const times = 1 + Math.floor(random.next() * 2);
  for (let i = 0; i < times; i++) {
    const poison = random.pick([
      ...POISON.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number').map(String),
      Buffer.from('0000-01-01T00:00:00.000Z|x').toString('base64url'),
      Buffer.from('2026-01-01T00:00:00.000Z|\u0000').toString('base64url'),
      Buffer.from('2026-01-01T00:00:00.000Z|1e300').toString('base64url'),
    ]);
    query[random.pick(names)] = poison;
  }
  return query;
}

/** The bytes a lone surrogate would have in UTF-8 if it were allowed (CESU-8), percent-encoded. */
function loneSurrogateBytes(code: number): string {
  return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
}

/** A query string that carries every value, lone surrogates as their (invalid) UTF-8 bytes (URLSearchParams would throw). */
export function queryString(query: Record<string, string>): string {
  const encode = (text: string) => [...text].map((char) => (/\p{Cs}/u.test(char) ? loneSurrogateBytes(char.charCodeAt(0)) : encodeURIComponent(char))).join('');
  const pairs = Object.entries(query).map(([name, value]) => `${encode(name)}=${encode(value)}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}
