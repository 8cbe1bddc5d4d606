import type { RequestOptions } from '../src/client.ts';
import type { OperationBody, OperationQuery, OperationResult } from '../src/operation-types.ts';
import type { OperationId } from '../src/operations.generated.ts';
import type { PageIterator } from '../src/pagination.ts';
import type { Tidings } from '../src/index.ts';

// `call` types each method's request and answer from its operation (openapi.generated.ts), so a method cannot send
// what its operation refuses; these checks hold the method's own signature to the operation too: a method that
// declares a wider or different result than its operation's answer, or takes params its operation does not accept,
// fails `npm run typecheck`, naming the operation.

type OutputOf<K extends OperationId> = OperationResult<K>;
type BodyInputOf<K extends OperationId> = OperationBody<K>;
type QueryInputOf<K extends OperationId> = OperationQuery<K>;

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
  verification: 'verifications';
  organization: 'organization';
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
