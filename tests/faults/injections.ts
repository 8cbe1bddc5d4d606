import type { TcpProxy } from '@tidings/testing';
import type { Rig } from './rig.ts';
import { sleep, type Reached } from './scenario.ts';

/**
 * SIGKILL gives a worker no chance to finish: from a tenth of the load, the two send-workers are killed in turn and
 * restarted, six times 1.5 s apart. The provider answers after 500 ms, so kills find calls in flight.
 */
export async function killSendWorkersInTurn(rig: Rig, reached: Reached): Promise<void> {
  rig.resend.state.respondAfterMs = 500;
  await reached(0.1);
  for (let kill = 0; kill < 6; kill += 1) {
    await rig.killAndRestartSendWorker(kill % 2);
    await sleep(1500);
  }
}

/**
 * Postgres going away twice, as a restart does: at a quarter and at 60 % of the load, every connection through
 * `proxy` is dropped and new ones are refused for 3 s; `restored` runs after each. Returns the connections the proxy
 * had taken before the first cut.
 */
export async function cutTwice(proxy: TcpProxy, reached: Reached, restored?: () => Promise<void>): Promise<number> {
  let before = 0;
  for (const fraction of [0.25, 0.6]) {
    await reached(fraction);
    before ||= proxy.connectionCount();
    proxy.cut();
    await sleep(3000);
    proxy.restore();
    await restored?.();
  }
  return before;
}
