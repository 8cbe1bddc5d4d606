import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Hono, type Context } from 'hono';

type Asset = { body: Uint8Array; type: string };

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};
const OWN = ['app.css', 'app.js', 'bull-board.css', 'favicon.svg', 'favicon.ico', 'overview.js', 'contacts-import.js', 'segment-count.js'];

// Read once at start-up: Pico and uPlot (the overview's charts) from their npm packages, and our own files. No CDN,
// so it works offline.
function loadAssets(): Record<string, Asset> {
  const asset = (file: string): Asset => ({ body: readFileSync(file), type: TYPES[path.extname(file)]! });
  return {
    'pico.min.css': asset(require.resolve('@picocss/pico/css/pico.min.css')),
    'uplot.min.js': asset(require.resolve('uplot/dist/uPlot.iife.min.js')),
    'uplot.min.css': asset(require.resolve('uplot/dist/uPlot.min.css')),
    ...Object.fromEntries(OWN.map((name) => [name, asset(path.join(__dirname, 'assets', name))])),
  };
}

/** Serves the stylesheets, scripts and icons of the dashboard under /assets, and /favicon.ico (asked by browsers). */
export function createAssetRoutes(): Hono {
  const assets = loadAssets();
  const routes = new Hono();
  const send = (c: Context, name: string) => {
    const asset = assets[name];
    if (!asset) return c.text('Not found', 404);
    c.header('Content-Type', asset.type);
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(asset.body as Uint8Array<ArrayBuffer>);
  };
  routes.get('/favicon.ico', (c) => send(c, 'favicon.ico'));
  routes.get('/assets/:name', (c) => send(c, c.req.param('name')));
  return routes;
}
