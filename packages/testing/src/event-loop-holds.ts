/**
 * Watches how long this thread's own work held its event loop: between two ticks of a 10 ms timer, the CPU time the
 * thread spent. A synchronous render on the loop shows as that much CPU time; a process that waited for a core on a
 * loaded machine does not (monitorEventLoopDelay counts that wait too, so it read 250 ms and more in CI with nothing
 * on the loop).
 * @example const holds = watchEventLoopHolds(); await work(); expect(holds.stop()).toBeLessThan(250);
 */
export function watchEventLoopHolds(everyMs = 10): { stop(): number } {
  let last = process.threadCpuUsage();
  let longestMs = 0;
  const tick = () => {
    const spent = process.threadCpuUsage(last);
    last = process.threadCpuUsage();
    longestMs = Math.max(longestMs, (spent.user + spent.system) / 1000);
  };
  const timer = setInterval(tick, everyMs);
  return {
    /** Stops watching; the longest hold in ms of this thread's CPU time. */
    stop() {
      clearInterval(timer);
      tick();
      return longestMs;
    },
  };
}
