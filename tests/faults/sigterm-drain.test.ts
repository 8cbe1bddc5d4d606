import http from 'node:http';
import { sendLoad, startRig, waitUntil } from './rig.ts';
import { MESSAGES } from './scenario.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from './settle.ts';

// SIGTERM is how an orchestrator stops a process (docker stop, a rolling deploy, a scale-down). The send-worker stops
// taking jobs and finishes the ones it holds; the API stops accepting connections and answers the requests it has;
// each then exits 0. CI runs this against the built apps (FAULTS_BUILT=1), as production starts them.

/** A message.send whose body is still arriving: resolves with the status once answered. */
function sendInPieces(apiUrl: string, key: string, n: number): { connected: Promise<void>; finish(): void; status: Promise<number> } {
  const body = JSON.stringify({ channelType: 'email', to: `drain${n}@example.com`, subject: `drain #${n}`, text: 'sent while the API stops' });
  const url = new URL(`${apiUrl}/v1/messages`);
  let request!: http.ClientRequest;
  let markConnected!: () => void;
  const connected = new Promise<void>((resolve) => (markConnected = resolve));
  const status = new Promise<number>((resolve, reject) => {
    request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: url.pathname,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.on('socket', (socket) => (socket.connecting ? socket.once('connect', markConnected) : markConnected()));
    request.write(body.slice(0, 10));
  });
  return { connected, finish: () => request.end(body.slice(10)), status };
}

it(`SIGTERM under load: the send-worker finishes its in-flight sends and the API its in-flight requests, then each exits 0 (${MESSAGES} emails)`, async () => {
  // a generous provider timeout: on a busy machine a 500 ms call must not time out and be parked for a retry
  const rig = await startRig({ sendWorkers: 1, env: { PROVIDER_TIMEOUT_MS: '10000' } });
  const { db, queues } = rig.deps;
  const { orgId, key } = rig.org;
  try {
    // each provider call takes 500 ms, so the worker holds calls in flight when the signal comes
    rig.resend.state.respondAfterMs = 500;
    const loading = sendLoad(rig, MESSAGES);
    loading.catch(() => {}); // awaited below; this only keeps a failure before then from going unhandled

    await waitUntil(
      async () => (await queues.email.getActiveCount()) >= 3,
      120_000,
      () => `no sends in flight\n${rig.logs()}`,
    );
    const inFlight = await queues.email.getActive();
    expect(await rig.signal(rig.sendWorkers[0]!, 'SIGTERM')).toBe(0);
    // It was the only send-worker. A worker that just dies leaves its jobs active until another takes them over as
    // stalled; this one finished them first: each completed, its message sent.
    const states = await Promise.all(inFlight.map((job) => job.getState()));
    expect(states).toEqual(inFlight.map(() => 'completed'));
    const messages = await db.message.findMany({ where: { id: { in: inFlight.map((job) => job.id!) } }, select: { status: true } });
    expect(messages.map((m) => m.status)).toEqual(inFlight.map(() => 'sent'));

    rig.addSendWorker();
    const load = await loading;
    const settleSeconds = await waitUntilSettled(rig, 90_000 + MESSAGES * 100);
    const verdict = await expectNothingLostOrDoubled(rig, load, MESSAGES);
    report('send-worker SIGTERM mid-load', MESSAGES, load, settleSeconds, verdict);

    // 20 requests whose bodies are half sent when the API gets SIGTERM: each is still answered 202 and stored
    const requests = Array.from({ length: 20 }, (_, n) => sendInPieces(rig.apiUrl, key, n));
    await Promise.all(requests.map((r) => r.connected));
    // the headers and the first bytes are on the wire; give the server a moment to read them (it then holds the requests)
    await new Promise((resolve) => setTimeout(resolve, 500));
    const apiExit = rig.signal(rig.api, 'SIGTERM');
    // the rest of each body after the signal: the API is closing and must still read and answer them
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const request of requests) request.finish();
    expect(await Promise.all(requests.map((r) => r.status))).toEqual(requests.map(() => 202));
    expect(await apiExit).toBe(0);
    expect(await db.message.count({ where: { orgId, subject: { startsWith: 'drain #' } } })).toBe(20);
    await expect(fetch(`${rig.apiUrl}/healthz`)).rejects.toThrow();
  } finally {
    await rig.close();
  }
});
