// npm start's supervisor with a process that always crashes: each restart waits longer, and each step is logged.
import { waitFor } from '@tidings/testing';
import { superviseApps } from '../../../scripts/supervise.ts';

const crasher = { name: 'crasher', command: process.execPath, args: ['-e', 'process.exit(3)'] };

/** Polls until `isDone` (at most 20 s). */
const until = (isDone: () => boolean) => waitFor(isDone, 20_000, 'the supervisor to get there');

it('restarts a crashing app with a wait that doubles for each crash in a row, and logs every step', async () => {
  const lines: string[] = [];
  const supervisor = superviseApps([crasher], { env: process.env, restartCrashed: true, log: (line) => lines.push(line), baseBackoffMs: 100, maxBackoffMs: 400, stdio: 'ignore' });
  await until(() => lines.filter((line) => line.includes('restarting')).length >= 4);
  await supervisor.stop();

  const restarts = lines.filter((line) => line.includes('restarting')).slice(0, 4);
  expect(restarts.map((line) => /^crasher exited \(code 3\); restarting in ([\d.]+) s \(crash (\d) in a row\)$/.exec(line)?.[2])).toEqual(['1', '2', '3', '4']);
  // jitter keeps each wait between half and all of base * 2^(n-1), capped at 400 ms
  const waits = restarts.map((line) => Number(/in ([\d.]+) s/.exec(line)![1]) * 1000);
  const ceilings = [100, 200, 400, 400];
  waits.forEach((waitMs, i) => {
    expect(waitMs).toBeGreaterThanOrEqual(ceilings[i]! / 2 - 50);
    expect(waitMs).toBeLessThanOrEqual(ceilings[i]! + 50);
  });
  expect(lines[0]).toMatch(/^crasher started \(pid \d+\)$/);
});

it('in production mode, the first exit stops every app instead', async () => {
  const lines: string[] = [];
  const sleeper = { name: 'sleeper', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60_000)'] };
  const supervisor = superviseApps([sleeper, crasher], { env: process.env, restartCrashed: false, log: (line) => lines.push(line), stdio: 'ignore' });
  await supervisor.stopped;
  expect(lines).toContain('crasher exited (code 3); stopping the rest');
  expect(lines.some((line) => line.includes('restarting'))).toBe(false);
  const sleeperProcess = supervisor.processes().get('sleeper')!;
  expect(sleeperProcess.exitCode !== null || sleeperProcess.signalCode !== null).toBe(true);
});
