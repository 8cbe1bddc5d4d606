import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

const BUNDLE_PATH = '/docs/scalar.js';

// Scalar's self-contained browser bundle (apps/api/public/README.md says where it comes from), served by the API
// itself so /docs works offline and loads nothing from a CDN: beside the built bundle (tsup copies public/ there),
// or in public/ when running from the sources.
let bundle: Promise<Buffer> | undefined;
function standaloneBundle(): Promise<Buffer> {
  const candidates = [path.join(__dirname, 'scalar.js'), path.join(__dirname, '../../public/scalar.js')];
  bundle ??= readFile(candidates.find((file) => existsSync(file)) ?? candidates[0]!);
  return bundle;
}

// Scalar's hosted extras (AI agent, MCP generation, developer tools, telemetry, web fonts) would call out to its servers
const configuration = {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
};

// The page Scalar documents for its standalone bundle: the script, then createApiReference on an empty element.
// The configuration is ours and constant, so nothing in it needs escaping.
const page = `<!doctype html>
<html>
  <head>
    <title>Tidings API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="app"></div>
    <script src="${BUNDLE_PATH}"></script>
    <script>
      Scalar.createApiReference('#app', ${JSON.stringify(configuration, null, 2)})
    </script>
  </body>
</html>`;

/** `/docs`: the interactive API reference of `/v1/openapi.json` (Scalar), with its script served locally. */
export const docsRoutes = new Hono<AppEnv>()
  .get('/docs', (c) => c.html(page))
  .get(BUNDLE_PATH, async (c) => {
    const body = await standaloneBundle();
    return c.body(new Uint8Array(body), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    });
  });
