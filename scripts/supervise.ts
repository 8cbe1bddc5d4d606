// Runs a set of processes in one terminal for `npm start`: in development a crashed one is started again after a
// growing wait, so one crash does not take everything down; in production mode the first exit stops them all.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import { backoffDelayMs } from '@tidings/core';

export type SupervisedApp = { name: string; command: string; args: string[] };

export type SuperviseOptions = {
  env: NodeJS.ProcessEnv;
  /** Start a crashed app again (development); false: any exit stops every app. */
  restartCrashed: boolean;
  /** One line per event: started, exited, restarting. */
  log: (line: string) => void;
  /** The first restart's wait; each crash in a row doubles it (with jitter), up to `maxBackoffMs`. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** An app up this long is healthy again: its next crash waits `baseBackoffMs` once more. */
  stableAfterMs?: number;
  stdio?: StdioOptions;
  /** Each line an app prints, to write as this returns it (development: readable logs); unset, apps write to the terminal. */
  formatLine?: (line: string) => string;
};

export type Supervisor = {
  /** The running process of each app (it changes when an app is restarted). */
  processes(): Map<string, ChildProcess>;
  /** SIGTERM to every app; resolves once all have exited (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
  /** Resolves when the supervisor stopped by itself (production mode: an app exited). */
  stopped: Promise<void>;
};

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Starts every app and watches it. A crash in development is logged with the wait before the restart
 * (`api exited (code 1); restarting in 1 s (crash 1 in a row)`); a stop (SIGINT, SIGTERM) restarts nothing.
 * @example const supervisor = superviseApps(apps, { env: process.env, restartCrashed: true, log: console.error });
 */
export function superviseApps(apps: SupervisedApp[], options: SuperviseOptions): Supervisor {
  const { baseBackoffMs = 1000, maxBackoffMs = 30_000, stableAfterMs = 30_000 } = options;
  const running = new Map<string, ChildProcess>();
  const timers = new Set<NodeJS.Timeout>();
  let isStopping = false;
  let markStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));

  const start = (app: SupervisedApp, crashesInARow: number) => {
    const { formatLine } = options;
    const child = spawn(app.command, app.args, { stdio: formatLine ? ['inherit', 'pipe', 'pipe'] : (options.stdio ?? 'inherit'), env: options.env });
    if (formatLine) {
      for (const [from, to] of [
        [child.stdout!, process.stdout],
        [child.stderr!, process.stderr],
      ] as const) {
        createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(formatLine(line)));
      }
    }
    const startedAt = Date.now();
    running.set(app.name, child);
    options.log(`${app.name} started (pid ${child.pid})`);
    child.once('exit', (code, signal) => {
      if (isStopping) return;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (!options.restartCrashed) {
        options.log(`${app.name} exited (${how}); stopping the rest`);
        void stop().then(markStopped);
        return;
      }
      const crashes = Date.now() - startedAt >= stableAfterMs ? 1 : crashesInARow + 1;
      const waitMs = backoffDelayMs(crashes, { baseMs: baseBackoffMs, maxMs: maxBackoffMs });
      options.log(`${app.name} exited (${how}); restarting in ${seconds(waitMs)} (crash ${crashes} in a row)`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!isStopping) start(app, crashes);
      }, waitMs);
      timers.add(timer);
    });
  };

  const stop = async (graceMs = 15_000) => {
    isStopping = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    const children = [...running.values()].filter((child) => child.exitCode === null && child.signalCode === null);
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };

  for (const app of apps) start(app, 0);
  return { processes: () => running, stop, stopped };
}
