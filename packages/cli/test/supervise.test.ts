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

it('in development, prints each JSON log line of an app as one readable line, and other lines as they are', async () => {
  const { readableLogLines } = await import('../../../scripts/dev-log.ts');
  const format = readableLogLines(false);
  const json = JSON.stringify({ level: 30, time: '2026-12-07T03:00:01.000Z', pid: 1, hostname: 'h', name: 'api', msg: 'listening', port: 3000 });
  const readable = format(json);
  expect(readable).toMatch(/^\[\d{2}:\d{2}:\d{2}\] INFO \(api\): listening \{"port":3000\}\n$/);
  expect(format('not json')).toBe('not json\n');

  // through the supervisor: an app's lines reach the formatter one by one
  const seen: string[] = [];
  const talker = { name: 'talker', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(json)}); console.error('plain')`] };
  const supervisor = superviseApps([talker], {
    env: process.env,
    restartCrashed: false,
    log: () => {},
    formatLine: (line) => {
      seen.push(format(line));
      return '';
    },
  });
  await until(() => seen.length === 2);
  await supervisor.stopped;
  expect(seen.sort()).toEqual([readable, 'plain\n'].sort());
});
