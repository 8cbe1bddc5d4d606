// What `npm start` does around the supervisor: bring the apps' bundles up to date only when a source changed since
// they were built, and say when each app is ready.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';
import type { Config } from '@tidings/config';

/** One app `npm start` runs: its bundle (relative to the repository) and the ops port its /readyz answers on. */
export type StartedApp = { name: string; bundle: string; opsPort(config: Config): number };

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The newest modification time of the files under `dir`, leaving out tests, builds and dependencies. */
function newestFile(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'test', '.turbo'].includes(entry.name) || entry.name.endsWith('.test.ts')) continue;
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestFile(file) : statSync(file).mtimeMs);
  }
  return newest;
}

/** Whether a bundle is missing or older than a source it is built from (apps, the packages they compile in, the build script). */
function bundlesStale(root: string, apps: StartedApp[]): boolean {
  const bundles = apps.map((app) => path.join(root, app.bundle));
  if (!bundles.every((bundle) => existsSync(bundle))) return true;
  const built = Math.min(...bundles.map((bundle) => statSync(bundle).mtimeMs));
  const sources = [path.join(root, 'apps'), path.join(root, 'packages'), path.join(root, 'scripts/build.ts')];
  return sources.some((source) => (statSync(source).isDirectory() ? newestFile(source) : statSync(source).mtimeMs) > built);
}

/**
 * Builds the apps' bundles when one is stale, while the caller migrates: in this process, through one esbuild
 * service (not turbo running npm and a builder per app, which cost several seconds of CPU more on a cold start).
 * `done` resolves to whether the bundles are usable.
 * @example const build = buildApps(root, apps, log); await migrate(url); if (!(await build.done)) process.exit(1);
 */
export function buildApps(root: string, apps: StartedApp[], log: (line: string) => void): { done: Promise<boolean> } {
  if (!bundlesStale(root, apps)) {
    log('the apps are built and up to date');
    return { done: Promise.resolve(true) };
  }
  log('building the apps (a source changed since the last build)...');
  const started = Date.now();
  const workspaces = apps.map((app) => app.bundle.split('/dist/')[0]!);
  // loaded only here: esbuild starts its service process as it loads
  const done = import('./build.ts')
    .then(({ buildWorkspace }) => Promise.all(workspaces.map((workspace) => buildWorkspace(workspace))))
    .then(
      () => {
        log(`built the apps in ${seconds(Date.now() - started)}`);
        return true;
      },
      (error: Error) => {
        console.error(error.message);
        return false;
      },
    );
  return { done };
}

/**
 * Whether `url` answers 200. node:http rather than fetch: asked of every app twice a second until it is ready, fetch
 * (and refused connections every 200 ms) cost this process seconds of CPU while the apps started on a loaded machine.
 */
function answersReady(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(false));
  });
}

/**
 * Logs each app's readiness (its ops /readyz answers 200) and then that every app is ready, with the time since
 * `startedAt`. An app on ops port 0 (any free port) cannot be asked and is left out. Holds no process open.
 */
export function reportReadiness(apps: StartedApp[], config: Config, startedAt: number, log: (line: string) => void): void {
  const host = config.opsHost === '0.0.0.0' ? '127.0.0.1' : config.opsHost;
  const waiting = new Map(apps.filter((app) => app.opsPort(config) !== 0).map((app) => [app.name, `http://${host}:${app.opsPort(config)}/readyz`]));
  const poll = async () => {
    const answers = await Promise.all([...waiting].map(async ([name, url]) => [name, await answersReady(url)] as const));
    for (const [name, ready] of answers) {
      if (!ready) continue;
      waiting.delete(name);
      log(`${name} is ready (${seconds(Date.now() - startedAt)} after npm start)`);
      if (!waiting.size) log(`every app is ready, ${seconds(Date.now() - startedAt)} after npm start`);
    }
    if (waiting.size) setTimeout(poll, 500).unref();
  };
  void poll();
}
