// How the apps, the CLI and the SDK are built (`npm run build` in each workspace runs `tsx ../../scripts/build.ts`;
// `npm start` calls buildWorkspace itself for the apps it runs). esbuild directly, rather than tsc: the workspace
// packages export their .ts sources, which tsc would leave as imports node cannot load; one bundle per app also loads
// faster and holds less memory. (tsup did the same through esbuild, with ~40 packages of its own and a second esbuild.)
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';

const root = path.resolve(__dirname, '..');
// the template renderer's worker threads load this file beside the bundle (see template-renderer.ts)
const renderTask = path.join(root, 'packages/core/src/templates/render-task.ts');

/** One workspace's build: its entries (output name -> source), files copied into dist/, and the formats. */
type WorkspaceBuild = {
  entry: Record<string, string>;
  /** source path -> path under dist/ ('' = dist itself), relative to the workspace */
  copy?: Record<string, string>;
  /** the CLI's bin compares its sources' times against the build (dist/metafile-cjs.json) */
  metafile?: boolean;
  /** a library for any runtime (the SDK) rather than an app for node */
  library?: boolean;
};

export const WORKSPACE_BUILDS: Record<string, WorkspaceBuild> = {
  // public/ (the API reference's browser bundle) is read beside the bundle by docs.routes.ts
  'apps/api': { entry: { server: 'src/server.ts' }, copy: { public: '' } },
  // the stylesheet and script the pages link, read beside the bundle (`dist/assets`) as beside the sources
  'apps/dashboard': { entry: { server: 'src/server.ts' }, copy: { 'src/assets': 'assets' } },
  'apps/send-worker': { entry: { worker: 'src/worker.ts' } },
  'apps/webhook-worker': { entry: { worker: 'src/worker.ts' } },
  'apps/smtp': { entry: { server: 'src/server.ts' } },
  'packages/cli': { entry: { bin: 'src/bin.ts' }, metafile: true },
  // ESM (.mjs) and CJS (.cjs) for any runtime with fetch and Web Crypto (no node: imports, no dependencies: the API's
  // types are src/openapi.generated.ts); declarations come from tsc and scripts/build-types.ts
  'packages/sdk': { entry: { index: 'src/index.ts' }, library: true },
};

// Our packages are compiled in; any other bare import stays a require() of node_modules, where npm installs it
// (`npm ci --omit=dev` in the image).
const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@tidings/') ? undefined : { path: args.path, external: true }));
  },
};

/**
 * Builds one workspace (a key of WORKSPACE_BUILDS) into its dist/, emptied first.
 * @example await buildWorkspace('apps/api');
 */
export async function buildWorkspace(workspace: string): Promise<void> {
  const spec = WORKSPACE_BUILDS[workspace];
  if (!spec) throw new Error(`no build declared for ${workspace} (scripts/build.ts)`);
  const dir = path.join(root, workspace);
  const outdir = path.join(dir, 'dist');
  await rm(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(Object.entries(spec.entry).map(([name, file]) => [name, path.join(dir, file)]));
  const common: BuildOptions = { bundle: true, outdir, sourcemap: true, absWorkingDir: dir, logLevel: 'warning' };
  if (spec.library) {
    await build({ ...common, entryPoints, format: 'esm', platform: 'neutral', target: 'es2022', outExtension: { '.js': '.mjs' } });
    await build({ ...common, entryPoints, format: 'cjs', platform: 'neutral', target: 'es2022', outExtension: { '.js': '.cjs' } });
    return;
  }
  const result = await build({
    ...common,
    entryPoints: { ...entryPoints, 'render-task': renderTask },
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    plugins: [thirdPartyExternal],
    metafile: spec.metafile,
  });
  if (spec.metafile) await writeFile(path.join(outdir, 'metafile-cjs.json'), JSON.stringify(result.metafile));
  for (const [from, to] of Object.entries(spec.copy ?? {})) {
    await mkdir(path.join(outdir, to), { recursive: true });
    await cp(path.join(dir, from), path.join(outdir, to), { recursive: true });
  }
}

// `tsx ../../scripts/build.ts` in a workspace builds that workspace
if (require.main === module) {
  const workspace = path.relative(root, process.cwd()).split(path.sep).join('/');
  const started = Date.now();
  buildWorkspace(workspace).then(
    () => console.log(`built ${workspace}/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
