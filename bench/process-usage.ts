// What a benchmark reads of a child process from /proc: its peak memory and the CPU it has used (of Postgres's
// backends too).
import { readFileSync } from 'node:fs';
import type { Deps } from '@tidings/core';
import type { Prisma } from '@tidings/db';

/** Samples a process's resident memory (from /proc) every 500 ms; `stop()` returns the peak in MiB. */
export function sampleRss(pid: number): { stop(): number } {
  let peakKb = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // the process has exited: keep the peak seen so far
    }
  };
  sample();
  const timer = setInterval(sample, 500);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return Math.round(peakKb / 1024);
    },
  };
}

/** CPU seconds (user + system, every thread) a process has used so far; 0 once it has exited. */
export function cpuSecondsOf(pid: number): number {
  try {
    // fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks: 100 per second on Linux
  } catch {
    return 0;
  }
}

/**
 * A process's CPU seconds so far split three ways: its main thread's user and system time, and every other thread's
 * (GC helpers, the libuv pool, the compiler): what a V8 profile of the main thread sees and what it does not.
 */
export function cpuPartsOf(pid: number): { mainUser: number; mainSystem: number; otherThreads: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const mainUser = Number(fields[11]) / 100;
    const mainSystem = Number(fields[12]) / 100;
    return { mainUser, mainSystem, otherThreads: Math.max(0, cpuSecondsOf(pid) - mainUser - mainSystem) };
  } catch {
    return { mainUser: 0, mainSystem: 0, otherThreads: 0 };
  }
}

/**
 * CPU seconds the Postgres backends matching `where` (a condition on pg_stat_activity) spend from now on, sampled
 * every 250 ms: a backend that closes meanwhile counts up to its last sample, one that opens counts whole.
 * @example const meter = backendsCpuMeter(db, Prisma.sql`application_name = 'cpu-api'`); await meter.ready; ...; const seconds = await meter.stop();
 */
export function backendsCpuMeter(db: Deps['db'], where: Prisma.Sql) {
  const backends = new Map<number, { first: number; last: number }>();
  let isRunning = false;
  const sample = async () => {
    const rows = await db.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE ${where}`;
    for (const { pid } of rows) {
      const seconds = cpuSecondsOf(pid);
      const seen = backends.get(pid);
      if (!seen) backends.set(pid, { first: isRunning ? 0 : seconds, last: seconds });
      else if (seconds > 0) seen.last = seconds;
    }
  };
  const ready = sample().then(() => {
    isRunning = true;
  });
  const timer = setInterval(() => void sample(), 250);
  return {
    ready,
    async stop(): Promise<number> {
      await sample();
      clearInterval(timer);
      let seconds = 0;
      for (const b of backends.values()) seconds += b.last - b.first;
      return seconds;
    },
  };
}
