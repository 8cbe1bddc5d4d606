// Writes src/operations.generated.ts: method, path and Idempotency-Key use of every operation declared in
// @tidings/contracts, as plain data, so the SDK derives its calls from the same declarations the API serves without
// shipping zod or the schemas. Run: npm run generate -w @tidings/sdk (test/operations.test.ts fails when stale).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '@tidings/contracts';

export const GENERATED_OPERATIONS_PATH = path.join(__dirname, '..', 'src', 'operations.generated.ts');

/**
 * The text of src/operations.generated.ts for the operations declared now.
 * @example writeFileSync(GENERATED_OPERATIONS_PATH, renderOperationTable());
 */
export function renderOperationTable(): string {
  const rows = [...operations]
    .sort((a, b) => a.operationId.localeCompare(b.operationId))
    .map((op) => `  '${op.operationId}': { method: '${op.method.toUpperCase()}', path: '${op.path}', idempotent: ${op.idempotent} },`);
  return [
    '// Generated from the operations declared in packages/contracts: do not edit. Regenerate: npm run generate -w @tidings/sdk',
    '',
    '/** Method, path (below `/v1`, `{name}` parameters) and Idempotency-Key use of every API operation, by operationId. */',
    'export const operations = {',
    ...rows,
    '} as const;',
    '',
    '/** The id of an operation of the API: `message.send`, `contact.list`, ... */',
    'export type OperationId = keyof typeof operations;',
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(GENERATED_OPERATIONS_PATH, renderOperationTable());
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_OPERATIONS_PATH)}`);
}
