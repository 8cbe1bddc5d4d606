import type { operations, z } from '@tidings/contracts';
import type { RequestOptions } from '../src/client.ts';
import type { PageIterator } from '../src/pagination.ts';
import type { Tidings } from '../src/index.ts';

// The SDK's method signatures are written by hand (the published declarations carry no zod), so the compiler holds
// them to the operations they call: each method's result is what the operation's success response parses to, and
// each method's parameters are a body or query the operation accepts. `npm run typecheck` fails on a drift, naming
// the operation; the assertions below make the same check visible as a test.

type Operation = (typeof operations)[number];
type OperationId = Operation['operationId'];
type OperationOf<K extends OperationId> = Extract<Operation, { operationId: K }>;

/** The success response's parsed body: JSON, a CSV or MIME text, or nothing (204). */
type SuccessOf<R> = R[Extract<keyof R, 200 | 201 | 202 | 204>];
// biome-ignore lint/suspicious/noConfusingVoidType: an operation without a body answers Promise<void> in the SDK
type BodyOf<S> = S extends { content: infer C } ? (C[keyof C] extends { schema: infer Z extends z.ZodType } ? z.output<Z> : never) : void;
type OutputOf<K extends OperationId> = BodyOf<SuccessOf<OperationOf<K>['responses']>>;

/** The request's body (JSON) or query, as the caller may write it; `never` when the operation takes neither. */
type RequestOf<K extends OperationId> = OperationOf<K> extends { request: infer Q } ? Q : never;
type BodyInputOf<K extends OperationId> = RequestOf<K> extends { body: { content: { 'application/json': { schema: infer Z extends z.ZodType } } } } ? z.input<Z> : never;
type QueryInputOf<K extends OperationId> = RequestOf<K> extends { query: infer Z extends z.ZodType } ? z.input<Z> : never;

/** The SDK resource of each operation group. */
type Groups = {
  apiKey: 'apiKeys';
  audit: 'auditEvents';
  broadcast: 'broadcasts';
  contact: 'contacts';
  emailDomain: 'emailDomains';
  message: 'messages';
  phoneNumber: 'phoneNumbers';
  sandbox: 'sandbox';
  segment: 'segments';
  suppression: 'suppressions';
  template: 'templates';
  topic: 'topics';
  webhook: 'webhooks';
};
type MethodOf<K extends OperationId> = K extends `${infer G extends keyof Groups}.${infer V}`
  ? V extends keyof Tidings[Groups[G]]
    ? Tidings[Groups[G]][V]
    : 'no SDK method'
  : never;

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** What a method gives back: a promise's value, or the items of a list (a PageIterator pages `{ data }`). */
type ResultOf<M> = M extends (...args: never[]) => infer R ? (R extends PageIterator<infer T> ? { data: T[] } : Awaited<R>) : never;
type ComparedOutput<K extends OperationId> =
  ResultOf<MethodOf<K>> extends { data: infer T }
    ? OutputOf<K> extends { data: infer U }
      ? Equal<T, U>
      : Equal<ResultOf<MethodOf<K>>, OutputOf<K>>
    : Equal<ResultOf<MethodOf<K>>, OutputOf<K>>;

/** The method's params argument (after its ids, when it takes any; never the request options): a body or a query. */
type AfterIds<A> = A extends [string, ...infer Rest] ? AfterIds<Rest> : A;
type ParamsOf<M> = M extends (...args: infer A) => unknown ? FirstParams<AfterIds<A>> : never;
type FirstParams<A> = A extends [(infer P)?, ...unknown[]] ? (Equal<NonNullable<P>, RequestOptions> extends true ? never : NonNullable<P>) : never;
type AcceptedParams<K extends OperationId> = [ParamsOf<MethodOf<K>>] extends [never] ? true : [ParamsOf<MethodOf<K>>] extends [BodyInputOf<K> | QueryInputOf<K>] ? true : false;

/** The operations whose SDK method's result, or params, do not match the contract: `never` when all do. */
export type ResultMismatches = { [K in OperationId]: ComparedOutput<K> extends true ? never : K }[OperationId];
export type ParamsMismatches = { [K in OperationId]: AcceptedParams<K> extends true ? never : K }[OperationId];

// a compile error here names the operations whose method drifted from the contract
const results: [ResultMismatches] extends [never] ? 'every result matches' : ResultMismatches = 'every result matches';
const params: [ParamsMismatches] extends [never] ? 'every params type is accepted' : ParamsMismatches = 'every params type is accepted';

it('every SDK method returns what its operation answers and sends what it accepts (checked by the compiler)', () => {
  expect([results, params]).toEqual(['every result matches', 'every params type is accepted']);
});
