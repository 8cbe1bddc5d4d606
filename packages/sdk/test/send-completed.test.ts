import type { SendMessageParams } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

// Compile-time checks (`npm run typecheck`): the send body is a union per channel, so a field of the other channel
// is a type error, not a 400 at run time.
export const typeChecks: SendMessageParams[] = [
  { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x', cc: ['bo@example.com'], attachments: [{ filename: 'a.pdf', content: 'QUJD' }] },
  { channelType: 'sms', to: '+14155550123', body: 'x', mediaUrls: ['https://example.com/a.png'] },
  // @ts-expect-error an SMS has no subject
  { channelType: 'sms', to: '+14155550123', body: 'x', subject: 'Hi' },
  // @ts-expect-error an SMS has no attachments
  { channelType: 'sms', to: '+14155550123', body: 'x', attachments: [] },
  // @ts-expect-error an email has no body
  { channelType: 'email', to: 'ada@example.com', subject: 'Hi', body: 'x' },
  // @ts-expect-error an email has no mediaUrls
  { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x', mediaUrls: [] },
];

describe('tidings.messages.send with the completed send body', () => {
  it('sends an email with cc, replyTo, headers and an attachment, and an MMS, typed per channel', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const email = await tidings.messages.send({
      channelType: 'email',
      to: 'ada@example.com',
      cc: ['bo@example.com'],
      replyTo: 'help@example.com',
      headers: { 'X-Ref': '1' },
      subject: 'Invoice',
      text: 'Attached',
      attachments: [{ filename: 'invoice.pdf', content: Buffer.from('%PDF').toString('base64') }],
    });
    expect(email).toMatchObject({ cc: ['bo@example.com'], replyTo: ['help@example.com'], headers: { 'X-Ref': '1' } });
    expect(email.attachments).toEqual([{ id: expect.stringMatching(/^att_/), filename: 'invoice.pdf', contentType: 'application/pdf', size: 4, contentId: null }]);
    const mms = await tidings.messages.send({ channelType: 'sms', to: '+14155550123', body: 'Look', mediaUrls: ['https://example.com/a.png'] });
    expect(mms.mediaUrls).toEqual(['https://example.com/a.png']);
  });
});
