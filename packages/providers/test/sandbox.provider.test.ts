import { Readable } from 'node:stream';
import type { OutgoingEmail } from '../src/provider.types.ts';
import { createSandboxProvider, sandboxEngagementFor, sandboxOutcomeFor } from '../src/sandbox.provider.ts';

// The sandbox adapter: nothing leaves the machine, so there is no refusal, throttle, timeout or malformed answer
// from a provider to test; what is left is what it promises instead: an id derived from the message (a repeat is the
// same send), attachments read through (one that cannot be read fails the send as it would at a real provider), and
// the outcome and engagement each recipient address asks for.
const email = (overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  messageId: 'msg_sandbox_1',
  from: 'hello@example.com',
  to: 'ada@example.com',
  subject: 'Hi',
  text: 'Hello',
  ...overrides,
});

describe('sandbox adapter', () => {
  it('accepts an email and an SMS with an id derived from the message id, the same on a repeat', async () => {
    const sandbox = createSandboxProvider();
    expect(sandbox.dedupesRepeats).toBe(true);
    await expect(sandbox.sendEmail(email())).resolves.toEqual({ providerMessageId: 'sandbox_msg_sandbox_1' });
    await expect(sandbox.sendEmail(email())).resolves.toEqual({ providerMessageId: 'sandbox_msg_sandbox_1' });
    await expect(sandbox.sendSms({ messageId: 'msg_sms', from: '+14155550100', to: '+14155550123', body: 'Hi' })).resolves.toEqual({ providerMessageId: 'sandbox_msg_sms' });
  });

  it('reads every attachment through, and fails the send when one cannot be read', async () => {
    let read = '';
    const content = Readable.from(['file ', 'body']).on('data', (chunk: string) => {
      read += chunk;
    });
    await createSandboxProvider().sendEmail(email({ attachments: [{ filename: 'a.txt', contentType: 'text/plain', contentId: null, content }] }));
    expect(read).toBe('file body');
    const unreadable = new Readable({
      read() {
        this.destroy(new Error('the attachment URL answered 404'));
      },
    });
    await expect(
      createSandboxProvider().sendEmail(email({ attachments: [{ filename: 'b.txt', contentType: 'text/plain', contentId: null, content: unreadable }] })),
    ).rejects.toThrow('the attachment URL answered 404');
  });

  it.each([
    ['ada@example.com', 'delivered'],
    ['bounce@example.com', 'bounced'],
    ['FAIL@example.com', 'failed'],
    ['+14155550123', 'delivered'],
    ['+14155550000', 'undelivered'],
  ])('reports %s as %s', (to, outcome) => {
    expect(sandboxOutcomeFor(to)).toBe(outcome);
  });

  it.each([
    ['open@example.com', ['opened']],
    ['click@example.com', ['opened', 'clicked']],
    ['complain@example.com', ['complained']],
    ['ada@example.com', []],
    ['+14155550123', []],
  ])('reports the engagement of %s', (to, engagement) => {
    expect(sandboxEngagementFor(to)).toEqual(engagement);
  });
});
