import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';

type Asset = { body: string; type: string };

// Read once at start-up: Pico from its npm package and our own few rules and scripts. No CDN, so it works offline.
function loadAssets(): Record<string, Asset> {
  const own = (name: string) => readFileSync(path.join(__dirname, 'assets', name), 'utf8');
  return {
    'pico.min.css': { body: readFileSync(require.resolve('@picocss/pico/css/pico.min.css'), 'utf8'), type: 'text/css; charset=utf-8' },
    'app.css': { body: own('app.css'), type: 'text/css; charset=utf-8' },
    'app.js': { body: own('app.js'), type: 'text/javascript; charset=utf-8' },
    'contacts-import.js': { body: own('contacts-import.js'), type: 'text/javascript; charset=utf-8' },
    'segment-count.js': { body: own('segment-count.js'), type: 'text/javascript; charset=utf-8' },
  };
}

/** Serves the stylesheet and script of the dashboard under /assets. */
export function createAssetRoutes(): Hono {
  const assets = loadAssets();
  const routes = new Hono();
  routes.get('/:name', (c) => {
    const asset = assets[c.req.param('name')];
    if (!asset) return c.text('Not found', 404);
    c.header('Content-Type', asset.type);
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(asset.body);
  });
  return routes;
}
