// Drain against a Resend at 5 requests per second: BENCH_PACED_MESSAGES queued emails of a broadcast (the bulk
// lane), one send-worker process with RESEND_RATE_PER_SECOND=5 against the fake Resend limited to 5 requests a
// second. Goal: messages per second / (5 x 100, what the limit allows with full batches) at least 0.9.
import { startFakeResend } from '@tidings/testing';
import type { Bench } from '../harness.ts';
import { drainSendWorker } from './worker-drain.ts';

const RATE = 5;
const BATCH = 100;

export type PacedDrainResult = { messagesPerSecond: number; ratio: number; seconds: number; failed: number; calls: number; rateLimited: number; messages: number };

export async function measurePacedDrain(bench: Bench, count: number): Promise<PacedDrainResult> {
  const resend = await startFakeResend({ ratePerSecond: RATE });
  try {
    const drained = await drainSendWorker(bench, resend, count, { ratePerSecond: RATE });
    const { counts } = resend.state;
    return {
      messagesPerSecond: drained.messagesPerSecond,
      ratio: Math.round((drained.messagesPerSecond / (RATE * BATCH)) * 100) / 100,
      seconds: drained.seconds,
      failed: drained.failed,
      calls: counts.accepted + counts.rateLimited,
      rateLimited: counts.rateLimited,
      messages: count,
    };
  } finally {
    await resend.close();
  }
}
