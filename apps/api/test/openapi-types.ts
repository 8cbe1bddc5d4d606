// Renders TypeScript types of the API from the document the app serves, with openapi-typescript (a third party's
// reading of our document, not ours). Run as a script (openapi-typescript is ESM underneath, so not inside jest):
//   npm run openapi:types -w @tidings/api          rewrites test/generated/openapi.d.ts from the app's document
//   tsx test/openapi-types.ts --stdout < doc.json   prints the types of the document on stdin
// contract-client.test.ts fails when the committed file is out of date, and `tsc` checks a client built on it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const GENERATED_TYPES_PATH = path.join(__dirname, 'generated', 'openapi.d.ts');

const HEADER = '// Generated from GET /v1/openapi.json by openapi-typescript: do not edit. Regenerate: npm run openapi:types -w @tidings/api\n';

/**
 * The `paths`/`components` types openapi-typescript makes of an OpenAPI document.
 * @example const text = await renderOpenApiTypes(document);
 */
export async function renderOpenApiTypes(document: object): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  // defaultNonNullable off: a request field with a default is optional to send, as the API treats it
  const ast = await openapiTS(document as never, { alphabetize: true, defaultNonNullable: false });
  return HEADER + astToString(ast);
}

async function servedDocument(): Promise<object> {
  const { loadConfig } = await import('@tidings/config');
  const { openDeps } = await import('@tidings/bootstrap');
  const { createApp } = await import('../src/app.ts');
  const deps = openDeps(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), 'openapi-types');
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
