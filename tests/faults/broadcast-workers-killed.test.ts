import { newId } from '@tidings/core';
import { startRig, waitUntil, type Rig } from './rig.ts';
import { MESSAGES } from './scenario.ts';

async function call(rig: Rig, method: string, path: string, body?: object) {
  const response = await fetch(`${rig.apiUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${rig.org.key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as Record<string, any>;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// A broadcast's fan-out writes chunks of messages in one statement each and adds their jobs after the commit; a
// fan-out worker killed between the two, or mid-chunk, and send-workers killed mid-send must still give every
// contact exactly one message, sent once.
it(`one message per contact while the fan-out worker and a send-worker are SIGKILLed mid-broadcast, ${MESSAGES} contacts`, async () => {
  const rig = await startRig({ sendWorkers: 1, fanOutWorker: true, env: { BROADCAST_CHUNK_SIZE: '25', BROADCAST_WORKER_CONCURRENCY: '2' } });
  try {
    const { db } = rig.deps;
    const orgId = rig.org.orgId;
    const ids = Array.from({ length: MESSAGES }, () => newId('con'));
    await db.$executeRaw`
      INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "attributes", "createdAt", "updatedAt")
      SELECT id, ${orgId}, 'c' || n || '@example.com', 'C' || n, '{"plan": "pro"}'::jsonb, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
      FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
    const template = await call(rig, 'POST', '/templates', {
      name: 'News',
      channelType: 'email',
      subject: 'News for {{ contact.firstName }}',
      text: 'Hello {{ contact.firstName }}',
    });
    const segment = await call(rig, 'POST', '/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    const broadcast = await call(rig, 'POST', '/broadcasts', { name: 'Faults', channelType: 'email', templateId: template.id, segmentId: segment.id });
    rig.resend.state.respondAfterMs = 200;
    await call(rig, 'POST', `/broadcasts/${broadcast.id}/send`, {});

    const chunks = Math.ceil(MESSAGES / 25);
    const chunksDone = () => db.broadcastChunk.count({ where: { broadcastId: broadcast.id } });
    for (const fraction of [0.15, 0.4, 0.7]) {
      await waitUntil(
        async () => (await chunksDone()) >= Math.ceil(fraction * chunks) || (await chunksDone()) === chunks,
        300_000,
        () => `fan-out to ${fraction}\n${rig.logs()}`,
      );
      const doneAtKill = await chunksDone();
      await rig.killAndRestartFanOut();
      await rig.killAndRestartSendWorker(0);
      // the next kill only once the new fan-out worker has written a chunk (or there is none left)
      await waitUntil(
        async () => (await chunksDone()) > doneAtKill || doneAtKill === chunks,
        300_000,
        () => `a chunk written after the restart at ${fraction}\n${rig.logs()}`,
      );
    }
    await waitUntil(
      async () =>
        (await call(rig, 'GET', `/broadcasts/${broadcast.id}`)).status === 'sent' &&
        (await db.message.count({ where: { broadcastId: broadcast.id, status: { in: ['queued', 'sending'] } } })) === 0,
      300_000 + MESSAGES * 100,
      async () => `the broadcast to finish: ${JSON.stringify((await call(rig, 'GET', `/broadcasts/${broadcast.id}`)).counts)}\n${rig.logs()}`,
    );

    const perContact = await db.$queryRaw<{ contacts: number; messages: number }[]>`
      SELECT count(DISTINCT "contactId")::int AS contacts, count(*)::int AS messages FROM "Message" WHERE "broadcastId" = ${broadcast.id}`;
    expect(perContact[0]).toEqual({ contacts: MESSAGES, messages: MESSAGES });
    const final = await call(rig, 'GET', `/broadcasts/${broadcast.id}`);
    expect(final.counts).toMatchObject({ recipients: MESSAGES, sent: MESSAGES, failed: 0, queued: 0 });
    // the provider got each contact's email once (a repeated call carried the same key and was not sent again)
    const accepted = rig.resend.state.emails.filter((e) => e.subject.startsWith('News for '));
    expect(accepted).toHaveLength(MESSAGES);
    expect(new Set(accepted.map((e) => e.to[0])).size).toBe(MESSAGES);
    console.log(`broadcast faults: ${MESSAGES} contacts, ${chunks} chunks, ${rig.resend.requests.length} provider requests for ${accepted.length} emails`);
  } finally {
    await rig.close();
  }
});
