// Writes src/openapi.generated.ts: the API's operations and schemas as openapi-typescript reads the document the API
// serves (GET /v1/openapi.json). The SDK's `call` takes its request and answer types from it, and tsc turns it into
// the published declarations, so the SDK's types are the served contract's, with no converter of our own.
//   npm run generate -w @tidings/sdk                      rewrites it (with src/operations.generated.ts)
//   tsx scripts/generate-openapi-types.ts --stdout < doc  prints the types of the document on stdin
// test/operations.test.ts fails when the committed file is not the served document's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const GENERATED_TYPES_PATH = path.join(__dirname, '..', 'src', 'openapi.generated.ts');

const HEADER = '// Generated from GET /v1/openapi.json by openapi-typescript: do not edit. Regenerate: npm run generate -w @tidings/sdk\n';

/**
 * The `paths`/`components`/`operations` types openapi-typescript makes of an OpenAPI document.
 * @example const text = await renderOpenApiTypes(document);
 */
export async function renderOpenApiTypes(document: object): Promise<string> {
  // ESM underneath: loaded by import(), so run this as a script (tsx), not inside jest's CommonJS
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(document as never, {
    alphabetize: true,
    // a request field with a default is optional to send, as the API treats it
    defaultNonNullable: false,
    // an object the document leaves open (template variables, metadata) takes any members, not none
    emptyObjectsUnknown: true,
  });
  return HEADER + astToString(ast);
}

async function servedDocument(): Promise<object> {
  const { createTestDeps } = await import('@tidings/testing');
  const { createApp } = await import('@tidings/api');
  const deps = createTestDeps();
  try {
    return await (await createApp(deps).request('/v1/openapi.json')).json();
  } finally {
    await deps.close();
  }
}

async function main() {
  if (process.argv.includes('--stdout')) {
    process.stdout.write(await renderOpenApiTypes(JSON.parse(readFileSync(0, 'utf8'))));
    return;
  }
  writeFileSync(GENERATED_TYPES_PATH, await renderOpenApiTypes(await servedDocument()));
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_PATH)}`);
}

if (require.main === module) void main();
