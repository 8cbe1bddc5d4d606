import { z } from '@tidings/contracts';
import { contractsDeclarations, toType } from '../scripts/contracts-declarations.ts';

// The published SDK's stand-in for @tidings/contracts: plain types from the zod schemas, request side and answer side.
describe('contracts declarations', () => {
  const Body = z.object({ name: z.string().min(1), plan: z.enum(['free', 'pro']).default('free'), tags: z.array(z.string()).optional(), note: z.string().nullable() });
  const declarations = contractsDeclarations({ z, Body } as never, ['export type Scalar = string | number;\nexport type Uses = z.infer<typeof Body>;']);

  it('declares a schema as a Shape of what may be sent (defaults optional) and what comes back (defaults filled in)', () => {
    expect(declarations).toContain(
      'export declare const Body: Shape<{\n  name: string;\n  plan?: "free" | "pro";\n  tags?: Array<string>;\n  note: string | null;\n}, {\n  name: string;\n  plan: "free" | "pro";\n  tags?: Array<string>;\n  note: string | null;\n}>;',
    );
    expect(declarations).toContain('export type Body = {\n  name: string;\n  plan: "free" | "pro";');
  });

  it('copies hand-written types that need nothing from zod, and leaves out those that do', () => {
    expect(declarations).toContain('export type Scalar = string | number;');
    expect(declarations).not.toContain('export type Uses');
  });

  it('turns records, unions and constants into their TypeScript forms', () => {
    expect(toType(z.toJSONSchema(z.record(z.string(), z.number())) as never, 0)).toBe('{\n  [key: string]: number;\n}');
    expect(toType(z.toJSONSchema(z.union([z.literal('a'), z.object({ b: z.boolean() })])) as never, 0)).toBe('"a" | {\n  b: boolean;\n}');
  });

  it('types a z.custom by the component its OpenAPI metadata names, and unknown array items by the schema named there', () => {
    const Criteria = z.custom<unknown>(() => true).openapi('SegmentCriteria');
    const Bulk = z.object({ rows: z.array(z.unknown()).openapi({ items: { $ref: '#/components/schemas/Body' } } as object), criteria: Criteria });
    const text = contractsDeclarations({ z, Body, Bulk } as never, ['export type SegmentCriteria = { all: string[] };']);
    expect(text).toContain(
      'export declare const Bulk: Shape<{\n  rows: Array<z.input<typeof Body>>;\n  criteria: SegmentCriteria;\n}, {\n  rows: Array<Body>;\n  criteria: SegmentCriteria;\n}>;',
    );
  });

  it('refuses a recursive schema rather than typing it as unknown', () => {
    expect(() => toType({ $ref: '#/$defs/Node' }, 0)).toThrow(/references are not supported/);
  });
});
