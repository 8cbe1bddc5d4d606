import { sendLoad, startRig, waitUntil, type Rig, type RigOptions } from './rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled, type Verdict } from './settle.ts';

/** Messages per scenario: FAULTS_MESSAGES (CI runs a small number; the default is the local, heavier run). */
export const MESSAGES = Number(process.env.FAULTS_MESSAGES || 2000);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once this fraction of the load has been accepted by the API. */
export type Reached = (fraction: number) => Promise<void>;

/**
 * One fault-injection scenario: starts the rig, sends MESSAGES emails (or `messages`) while `inject` does its damage (timed by the
 * load's progress), waits for everything to settle, checks every promise of the pipeline and reports the figures.
 * Returns the figures and the (closed) rig, whose proxies still tell how many connections they took.
 * @example await runScenario('redis cut', { proxyRedis: true }, async (rig, reached) => { await reached(0.3); rig.redisProxy!.cut(); ... });
 */
export async function runScenario(
  name: string,
  options: RigOptions & { mayFail?: boolean; mayRepeat?: boolean; channelOf?: (i: number) => 'email' | 'sms'; messages?: number },
  inject: (rig: Rig, reached: Reached) => Promise<void>,
): Promise<{ rig: Rig; verdict: Verdict }> {
  const rig = await startRig(options);
  const count = options.messages ?? MESSAGES;
  try {
    let accepted = 0;
    const reached: Reached = (fraction) =>
      waitUntil(
        () => accepted >= Math.ceil(fraction * count),
        600_000,
        () => `${fraction} of the load`,
      );
    const [load] = await Promise.all([sendLoad(rig, count, { onProgress: (n) => (accepted = n), channelOf: options.channelOf }), inject(rig, reached)]);
    const settleSeconds = await waitUntilSettled(rig, 90_000 + count * 100);
    const verdict = await expectNothingLostOrDoubled(rig, load, count, { mayFail: options.mayFail, mayRepeat: options.mayRepeat });
    report(name, count, load, settleSeconds, verdict);
    return { rig, verdict };
  } finally {
    await rig.close();
  }
}
