import path from 'node:path';
import type { Options } from 'tsup';

/**
 * How every app and the CLI are built for production: one CommonJS file per entry (Node 22 and 24), with our workspace
 * packages (TypeScript sources) compiled in and every third-party package left to node_modules, where npm installs
 * it (`npm ci --omit=dev`). esbuild (through tsup) rather than tsc: the workspace packages export their .ts sources,
 * which tsc would leave as imports node cannot load; one bundle per app also loads faster and holds less memory.
 * @example export default defineConfig(appBuild({ server: 'src/server.ts' }));
 */
export function appBuild(entry: Record<string, string>): Options {
  return {
    // the template renderer's worker threads load this file beside the bundle (see template-renderer.ts)
    entry: { ...entry, 'render-task': path.join(__dirname, 'packages/core/src/templates/render-task.ts') },
    format: ['cjs'],
    platform: 'node',
    target: 'node22',
    outDir: 'dist',
    clean: true,
    sourcemap: true,
    splitting: false,
    // our packages are compiled in; any other bare import stays a require() of node_modules
    noExternal: [/^@tidings\//],
    esbuildPlugins: [
      {
        name: 'third-party-external',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@tidings/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  };
}
