import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

const BUNDLE_PATH = '/docs/scalar.js';

// The reference's browser bundle (one self-contained file) comes from the installed @scalar/api-reference and is
// served by the API itself, so /docs works offline and loads nothing from a CDN.
let bundle: Promise<Buffer> | undefined;
function standaloneBundle(): Promise<Buffer> {
  bundle ??= readFile(path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'));
  return bundle;
}

/** `/docs`: the interactive API reference of `/v1/openapi.json` (Scalar), with its assets served locally. */
export const docsRoutes = new Hono<AppEnv>()
  .get(
    '/docs',
    Scalar({
      url: '/v1/openapi.json',
      cdn: BUNDLE_PATH,
      pageTitle: 'Tidings API reference',
      withDefaultFonts: false,
      telemetry: false,
      // Scalar's hosted extras (AI agent, MCP generation, developer tools) would call out to its servers
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
    }),
  )
  .get(BUNDLE_PATH, async (c) => {
    const body = await standaloneBundle();
    return c.body(new Uint8Array(body), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    });
  });
