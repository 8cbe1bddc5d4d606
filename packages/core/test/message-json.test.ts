import { createTestDeps, makeOrganization } from '@tidings/testing';
import { newId, toMessage } from '../src/index.ts';
import { messageColumnsSql, messageJsonSql } from '../src/messages/message-json.store.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

describe('messageJsonSql and messageColumnsSql', () => {
  it('build in SQL exactly what toMessage builds in TypeScript, for a bare row and a full one (attachment paths never shown)', async () => {
    const { orgId } = await makeOrganization(deps);
    const at = new Date('2026-11-23T10:11:12.345Z');
    const bare = await deps.db.message.create({
      data: { id: newId('msg'), orgId, channelType: 'sms', to: '+14155550123', from: '+15005550006', body: 'hi', segments: 1, status: 'queued', provider: 'sandbox' },
    });
    const full = await deps.db.message.create({
      data: {
        id: newId('msg'),
        orgId,
        channelType: 'email',
        to: 'ada@example.com',
        from: 'A "B" <a@example.com>',
        subject: 'Ünïcode ✓',
        text: 'line\nbreak',
        html: '<p>"quoted" & </p>',
        templateId: 'tpl_1',
        templateVersion: 3,
        contactId: 'con_1',
        status: 'bounced',
        provider: 'resend',
        mode: 'test',
        providerMessageId: 'prov_1',
        errorCode: 'BOUNCED',
        errorMessage: 'mailbox full',
        attempts: 2,
        tags: ['a', 'b c'],
        metadata: { plan: 'pro' },
        cc: ['bo@example.com'],
        bcc: ['cy@example.com'],
        replyTo: ['Support <help@example.com>'],
        headers: { 'X-Ref': '42' },
        attachments: [
          { id: 'att_1', filename: 'a.pdf', contentType: 'application/pdf', size: 3, contentId: null },
          { id: 'att_2', filename: 'logo.png', contentType: 'image/png', size: null, contentId: 'logo', path: 'https://example.com/logo.png' },
        ],
        scheduledAt: at,
        sentAt: at,
        openedAt: at,
        clickedAt: new Date('2026-11-23T10:11:14.000Z'),
        failedAt: new Date('2026-11-23T10:11:13.000Z'),
        createdAt: at,
        updatedAt: at,
      },
    });
    for (const row of [bare, full]) {
      const [{ json }] = await deps.db.$queryRaw<{ json: unknown }[]>`SELECT ${messageJsonSql} AS json FROM "Message" m WHERE m."id" = ${row.id}`;
      expect(json).toEqual(toMessage(row));
      // message.list hands this text to the client as it is: the same fields, in toMessage's order
      const [{ text }] = await deps.db.$queryRaw<
        { text: string }[]
      >`SELECT row_to_json(p)::text AS text FROM (SELECT ${messageColumnsSql} FROM "Message" m WHERE m."id" = ${row.id}) p`;
      expect(JSON.parse(text)).toStrictEqual(JSON.parse(JSON.stringify(toMessage(row))));
      expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(toMessage(row)));
    }
    expect([toMessage(bare).mode, toMessage(full).mode]).toEqual(['live', 'test']);
    expect(JSON.stringify(toMessage(full))).not.toContain('example.com/logo.png');
    expect(toMessage(full).attachments[1]).toEqual({ id: 'att_2', filename: 'logo.png', contentType: 'image/png', size: null, contentId: 'logo' });
  });
});
