import { watchEventLoopHolds } from './event-loop-holds.ts';

/** Spends `ms` of this thread's CPU time without returning to the event loop. */
function holdTheLoop(ms: number) {
  const start = process.threadCpuUsage();
  for (;;) {
    const spent = process.threadCpuUsage(start);
    if ((spent.user + spent.system) / 1000 >= ms) return;
  }
}

/** Blocks this thread for `ms` without spending CPU: as a process waiting for a core on a loaded machine. */
const blockWithoutCpu = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('watchEventLoopHolds', () => {
  it('counts a synchronous stretch of work on the loop', () => {
    const holds = watchEventLoopHolds();
    holdTheLoop(300);
    expect(holds.stop()).toBeGreaterThanOrEqual(300);
  });

  it('does not count a thread that waited without working (a wall-clock delay would read 400 ms)', () => {
    const holds = watchEventLoopHolds();
    blockWithoutCpu(400);
    expect(holds.stop()).toBeLessThan(100);
  });
});
