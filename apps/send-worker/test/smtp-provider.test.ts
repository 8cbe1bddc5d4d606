import { startSmtpServer, type TestSmtpServer } from '@tidings/testing';
import { createSmtpProvider, smtpMessageId } from '@tidings/providers';

let server: TestSmtpServer;
beforeAll(async () => {
  server = await startSmtpServer();
});
afterAll(() => server.close());

const email = { messageId: 'msg_smtp1', from: 'Acme <hello@acme.test>', to: 'ada@example.com', subject: 'Hi', text: 'Hello', html: '<p>Hello</p>' };

describe('the SMTP provider against a real SMTP server', () => {
  it('sends a mail the server parses, with a Message-ID derived from the message id', async () => {
    const smtp = createSmtpProvider({ url: server.url, poolSize: 2, timeoutMs: 5000 });
    try {
      await expect(smtp.sendEmail(email)).resolves.toEqual({ providerMessageId: '<msg_smtp1@acme.test>' });
      const mail = server.received.at(-1)!;
      expect(mail.envelope).toEqual({ from: 'hello@acme.test', to: ['ada@example.com'] });
      expect(mail.parsed).toMatchObject({ subject: 'Hi', text: 'Hello', html: '<p>Hello</p>', messageId: '<msg_smtp1@acme.test>' });
      expect(mail.parsed.from?.value).toEqual([{ address: 'hello@acme.test', name: 'Acme' }]);
    } finally {
      smtp.close();
    }
  });

  it('maps a 4xx to retryable and a 5xx to permanent, without the URL in the message', async () => {
    const smtp = createSmtpProvider({ url: server.url, poolSize: 1, timeoutMs: 5000 });
    try {
      server.failNext(1, 452);
      const deferred = await smtp.sendEmail({ ...email, messageId: 'msg_smtp2' }).catch((e) => e);
      expect(deferred).toMatchObject({ name: 'ProviderError', provider: 'smtp', isRetryable: true, status: 452 });
      server.failNext(1, 550);
      const refused = await smtp.sendEmail({ ...email, messageId: 'msg_smtp3' }).catch((e) => e);
      expect(refused).toMatchObject({ name: 'ProviderError', isRetryable: false, status: 550, reason: 'provider_rejected' });
      expect(`${deferred.message} ${refused.message}`).not.toContain('smtp-test-password');
    } finally {
      smtp.close();
    }
  });

  it('treats refused credentials (535) as permanent and an unreachable server as retryable', async () => {
    const wrongPassword = createSmtpProvider({ url: server.url.replace('smtp-test-password', 'wrong'), poolSize: 1, timeoutMs: 5000 });
    const unreachable = createSmtpProvider({ url: 'smtp://127.0.0.1:1', poolSize: 1, timeoutMs: 2000 });
    try {
      await expect(wrongPassword.sendEmail(email)).rejects.toMatchObject({ isRetryable: false, status: 535 });
      await expect(unreachable.sendEmail(email)).rejects.toMatchObject({ isRetryable: true, reason: 'provider_timeout' });
    } finally {
      wrongPassword.close();
      unreachable.close();
    }
  });
});

describe('smtpMessageId', () => {
  it('uses the domain of the sender, with or without a display name', () => {
    expect(smtpMessageId('msg_1', 'hello@acme.test')).toBe('<msg_1@acme.test>');
    expect(smtpMessageId('msg_1', '"Acme, Inc" <news@mail.acme.test>')).toBe('<msg_1@mail.acme.test>');
  });
});
