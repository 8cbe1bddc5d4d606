import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { insertApiKey } from '@tidings/core';
import { setupApi } from './setup.ts';

// contact.export (streamed CSV, memory flat at 100,000 contacts) and contact.bulkCreate's onConflict.
const t = setupApi();
afterAll(() => t.close());

// A full garbage collection on demand, so that the memory measured is what is held, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Reads a streamed body line by line without keeping it: the number of lines and the first few. `each` runs every 10,000 lines. */
async function readLines(response: Response, keep = 5, each = () => {}): Promise<{ count: number; first: string[] }> {
  const decoder = new TextDecoder();
  let rest = '';
  let count = 0;
  const first: string[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\r\n');
    rest = lines.pop()!;
    if (Math.floor((count + lines.length) / 10_000) > Math.floor(count / 10_000)) each();
    count += lines.length;
    for (const line of lines) if (first.length < keep) first.push(line);
  }
  expect(rest).toBe('');
  return { count, first };
}

describe('contact.export', () => {
  it('answers CSV with the contact.list filters, attributes as columns, fields quoted where needed', async () => {
    const { api, key } = await t.org();
    await api.post('/v1/contacts/bulk', {
      contacts: [
        { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace, Countess', attributes: { plan: 'pro', seats: 3 } },
        { email: 'grace@example.com', firstName: 'Grace "Amazing"', attributes: { tz: 'America/New_York' }, emailSubscribed: false, smsSubscribed: false },
        { phone: '+14155550123' },
      ],
    });
    const res = await t.app.request('/v1/contacts/export', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).split('\r\n');
    expect(lines[0]).toBe('id,email,phone,firstName,lastName,emailSubscribed,smsSubscribed,createdAt,updatedAt,attributes.plan,attributes.seats,attributes.tz');
    expect(lines).toHaveLength(5); // header, three contacts, the empty string after the last line break
    const ada = lines.find((l) => l.includes('ada@example.com'))!;
    expect(ada).toMatch(/^con_\w+,ada@example.com,,Ada,"Lovelace, Countess",true,true,[^,]+,[^,]+,pro,3,$/);
    expect(lines.find((l) => l.includes('grace@'))).toMatch(/,"Grace ""Amazing""",,false,false,[^,]+,[^,]+,,,America\/New_York$/);

    const unsubscribed = await api.get('/v1/contacts/export?subscribed=false');
    expect(unsubscribed.status).toBe(200);
    const rows = (unsubscribed.body as string).trim().split('\r\n');
    expect(rows[0]).toBe('id,email,phone,firstName,lastName,emailSubscribed,smsSubscribed,createdAt,updatedAt,attributes.tz');
    expect(rows.slice(1).map((r) => r.split(',')[1])).toEqual(['grace@example.com']);
  });

  it("another organization's segment is 404 and its contacts never appear; a test key reads the shared contacts and changes nothing", async () => {
    const owner = await t.org({ mode: 'live' });
    await owner.api.post('/v1/contacts', { email: 'ada@example.com', firstName: 'Ada' });
    const segment = (await owner.api.post('/v1/segments', { name: 'Ada', criteria: { all: [{ field: 'firstName', op: 'eq', value: 'Ada' }] } })).body;
    expect(((await owner.api.get(`/v1/contacts/export?segmentId=${segment.id}`)).body as string).trim().split('\r\n')).toHaveLength(2);
    const stranger = await t.org({ mode: 'live' });
    const foreign = await stranger.api.get(`/v1/contacts/export?segmentId=${segment.id}`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(((await stranger.api.get('/v1/contacts/export')).body as string).trim().split('\r\n')).toHaveLength(1);
    const testKey = await insertApiKey(t.deps.db, owner.orgId, { name: 'test', permission: 'full', mode: 'test' });
    const before = await t.deps.db.contact.findMany({ where: { orgId: owner.orgId } });
    expect((await t.client(testKey.key).get('/v1/contacts/export')).status).toBe(200);
    expect(await t.deps.db.contact.findMany({ where: { orgId: owner.orgId } })).toEqual(before);
    const bad = await owner.api.get('/v1/contacts/export?subscribed=maybe');
    expect([bad.status, bad.body.code]).toEqual([400, 'BAD_REQUEST']);
  });

  it('streams 100,000 contacts with the resident memory flat (read in batches, as fast as the client reads)', async () => {
    const { orgId, key } = await t.org();
    // bulk-inserted in SQL for speed; each with an attribute so every row has a column to fill
    await t.deps.db.$executeRaw`
      INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "attributes", "createdAt", "updatedAt")
      SELECT 'con_export' || lpad(n::text, 6, '0'), ${orgId}, 'person' || n || '@example.com', 'Person ' || n,
             jsonb_build_object('n', n, 'plan', CASE WHEN n % 2 = 0 THEN 'pro' ELSE 'free' END),
             now() AT TIME ZONE 'UTC' - make_interval(secs => n), now() AT TIME ZONE 'UTC'
      FROM generate_series(1, 100000) AS n`;
    const res = await t.app.request('/v1/contacts/export', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    collectGarbage();
    const before = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    let peak = before;
    // measured after a full collection every 10,000 lines: what the export holds, not garbage waiting for the collector
    const { count, first } = await readLines(res, 5, () => {
      collectGarbage();
      peak = Math.max(peak, process.memoryUsage().rss);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    });
    expect(count).toBe(100_001);
    expect(first[1]).toMatch(/^con_export000001,person1@example.com,/);
    const growthMb = (peak - before) / 1024 / 1024;
    // The CSV is about 8 MB and the rows as objects several times that: holding them would grow RSS far beyond this.
    const heapGrowthMb = (heapPeak - heapBefore) / 1024 / 1024;
    console.log(
      `contact.export of 100,000 contacts: RSS ${Math.round(before / 1024 / 1024)} MB before, peak growth ${growthMb.toFixed(1)} MB; heap held at most ${heapGrowthMb.toFixed(1)} MB more`,
    );
    expect(growthMb).toBeLessThan(48);
    expect(heapGrowthMb).toBeLessThan(16);
  }, 120_000);
});

describe('contact.bulkCreate onConflict', () => {
  it('skips existing contacts by default, and with "update" changes them: names, attributes merged, email or phone, never a resubscribe', async () => {
    const { api, orgId } = await t.org();
    const ada = (await api.post('/v1/contacts', { email: 'ada@example.com', firstName: 'Ada', lastName: 'Byron', attributes: { plan: 'free', seats: 1 } })).body;
    const gus = (await api.post('/v1/contacts', { phone: '+14155550123', emailSubscribed: false })).body;
    const skip = await api.post('/v1/contacts/bulk', { contacts: [{ email: 'ada@example.com', firstName: 'Changed' }, { email: 'new@example.com' }] });
    expect(skip.body.created.map((c: { email: string }) => c.email)).toEqual(['new@example.com']);
    expect(skip.body.updated).toEqual([]);
    expect(skip.body.errors).toEqual([{ index: 0, code: 'CONFLICT', message: 'email: another contact in this organization has this email' }]);

    const res = await api.post('/v1/contacts/bulk', {
      onConflict: 'update',
      contacts: [
        { email: 'ADA@example.com', lastName: 'Lovelace', attributes: { plan: 'pro', seats: null, team: 'math' } },
        { phone: '+1 415 555 0123', email: 'gus@example.com', emailSubscribed: true, smsSubscribed: false },
        { email: 'ada@example.com', phone: '+14155550123' },
        { email: 'fresh@example.com' },
      ],
    });
    expect([res.status, res.body.message]).toEqual([200, undefined]);
    expect(res.body.created.map((c: { email: string }) => c.email)).toEqual(['fresh@example.com']);
    expect(res.body.updated).toMatchObject([
      { id: ada.id, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', attributes: { plan: 'pro', team: 'math' } },
      { id: gus.id, email: 'gus@example.com', phone: '+14155550123', emailSubscribed: false, smsSubscribed: false },
    ]);
    expect(res.body.updated[0].attributes).toEqual({ plan: 'pro', team: 'math' });
    expect(res.body.errors).toEqual([{ index: 2, code: 'CONFLICT', message: 'email: same email as row 0 of this batch' }]);
    expect((await api.get(`/v1/contacts/${ada.id}`)).body.lastName).toBe('Lovelace');
    const updatedEvents = await t.deps.db.event.findMany({ where: { orgId, type: 'contact.updated' } });
    expect(updatedEvents).toHaveLength(2);
    // the SMS opt-out of the import reached the suppression list
    expect((await t.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true } })).map((s) => s.recipient).sort()).toEqual(['+14155550123', 'gus@example.com']);
  });

  it("updates only this organization's contacts and refuses a test key (shared configuration); a bad onConflict is 400", async () => {
    const owner = await t.org({ mode: 'live' });
    const ada = (await owner.api.post('/v1/contacts', { email: 'ada@example.com', firstName: 'Ada' })).body;
    const stranger = await t.org({ mode: 'live' });
    const res = await stranger.api.post('/v1/contacts/bulk', { onConflict: 'update', contacts: [{ email: 'ada@example.com', firstName: 'Mallory' }] });
    expect(res.body.created).toHaveLength(1);
    expect(res.body.updated).toEqual([]);
    expect((await owner.api.get(`/v1/contacts/${ada.id}`)).body.firstName).toBe('Ada');
    const testKey = await insertApiKey(t.deps.db, owner.orgId, { name: 'test', permission: 'full', mode: 'test' });
    const refused = await t.client(testKey.key).post('/v1/contacts/bulk', { onConflict: 'update', contacts: [{ email: 'ada@example.com', firstName: 'Mallory' }] });
    expect(refused.status).toBe(403);
    expect((await owner.api.get(`/v1/contacts/${ada.id}`)).body.firstName).toBe('Ada');
    const bad = await owner.api.post('/v1/contacts/bulk', { onConflict: 'merge', contacts: [{ email: 'x@example.com' }] });
    expect([bad.status, bad.body.message]).toEqual([400, expect.stringMatching(/^onConflict: /)]);
  });
});
