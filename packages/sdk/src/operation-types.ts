// What each operation takes and answers, read from the types openapi-typescript generates from the served document
// (openapi.generated.ts): `call` and `list` type their input and result by operation id, so a resource method whose
// body, query or answer drifts from its operation does not compile.
import type { components, operations } from './openapi.generated.ts';
import type { OperationId } from './operations.generated.ts';

/** The API's named schemas: `Schemas['Message']`, `Schemas['SendMessageBody']`, ... */
export type Schemas = components['schemas'];

type Parameters<Id extends OperationId> = operations[Id]['parameters'];

/** The `{name}` path parameters of an operation; `never` when its path has none. */
export type OperationPath<Id extends OperationId> = Parameters<Id> extends { path: infer P } ? P : never;

/** The query an operation accepts; `never` when it takes none. */
export type OperationQuery<Id extends OperationId> = Parameters<Id> extends { query?: infer Q } ? Exclude<Q, undefined> : never;

/** The JSON body an operation accepts; `never` when it takes none. */
export type OperationBody<Id extends OperationId> = JsonOf<Exclude<operations[Id]['requestBody'], undefined>>;
// `requestBody?: never` (no body) must stay never: a bare `never extends X` would hold and infer unknown
type JsonOf<R> = [R] extends [never] ? never : R extends { content: { 'application/json': infer B } } ? B : never;

/** Codes of the success answers: the SDK returns the body of whichever the operation declares. */
type SuccessStatus = 200 | 201 | 202 | 204;
type Success<Id extends OperationId> = operations[Id]['responses'][Extract<keyof operations[Id]['responses'], SuccessStatus>];

/** What an operation answers on success: its JSON, its text (a CSV, an email's source), or nothing (204). */
// biome-ignore lint/suspicious/noConfusingVoidType: an answer without a body is Promise<void> to the caller
export type OperationResult<Id extends OperationId> = Success<Id> extends { content: infer C } ? C[keyof C] : void;

/** The item type of a list operation (one whose answer is a page of `data`). */
export type OperationItem<Id extends OperationId> = OperationResult<Id> extends { data: Array<infer T> } ? T : never;

/** The list operations: those `client.list` can page through. */
export type ListOperationId = { [Id in OperationId]: OperationResult<Id> extends { data: unknown[]; hasMore: boolean } ? Id : never }[OperationId];

type Needed<K extends string, T> = { [P in K]: T };
type Optional<K extends string, T> = { [P in K]?: T };
type Absent<K extends string> = { [P in K]?: undefined };

/**
 * What one call of an operation sends: its `{name}` path parameters (`params`), query and JSON body, each required
 * when the operation requires it and refused when the operation takes none.
 */
export type OperationInput<Id extends OperationId = OperationId> = ([OperationPath<Id>] extends [never] ? Absent<'params'> : Needed<'params', OperationPath<Id>>) &
  ([OperationQuery<Id>] extends [never]
    ? Absent<'query'>
    : Parameters<Id> extends { query: unknown }
      ? Needed<'query', OperationQuery<Id>>
      : Optional<'query', OperationQuery<Id>>) &
  ([OperationBody<Id>] extends [never]
    ? Absent<'body'>
    : operations[Id] extends { requestBody: unknown }
      ? Needed<'body', OperationBody<Id>>
      : Optional<'body', OperationBody<Id>>);
