import { createUser, isPasswordResetUsable, requestPasswordReset, resetPasswordWithToken } from '@tidings/core';
import { startPipeline, waitFor } from './harness.ts';

// A reset email goes through its organization's own send path, so everything that reads the organization's messages
// (its API keys, members, webhooks, message.getSource) would read a working link, and with it the person's account.
// The stored email carries a sealed link; only the provider (here a real SMTP server) gets the working one.
jest.setTimeout(60_000);

const DASHBOARD = 'https://dashboard.tidings.test';
const WORKING_LINK = new RegExp(`${DASHBOARD}/reset-password/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_.-])`);
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline({ EMAIL_PROVIDERS: 'smtp', PUBLIC_DASHBOARD_URL: DASHBOARD });
  await h.startWorker();
});
afterAll(() => h.close());

const received = (to: string, count = 1) =>
  waitFor(
    () => {
      const mails = h.smtp.received.filter((m) => m.envelope.to.includes(to));
      return mails.length >= count ? mails : null;
    },
    20_000,
    `${count} mail(s) to ${to}`,
  );

it('sends the working link to the person only: the stored message, message.get and message.getSource carry a sealed one', async () => {
  const org = await h.liveOrg();
  const email = `owner-${Date.now()}@people.test`;
  await createUser(h.deps, { orgId: org.orgId, email, password: 'a good long password', role: 'owner' });

  await requestPasswordReset(h.deps, email);
  const [mail] = await received(email);
  const token = WORKING_LINK.exec(String(mail!.parsed.text))![1]!;
  expect(String(mail!.parsed.html)).toContain(`${DASHBOARD}/reset-password/${token}`);
  expect(await isPasswordResetUsable(h.deps, token)).toBe(true);

  const stored = await h.deps.db.message.findFirstOrThrow({ where: { orgId: org.orgId, to: email } });
  expect(stored).toMatchObject({ mode: 'live', trackClicks: false, trackOpens: false });
  expect(stored.text).toMatch(/\/reset-password\/sealed\.pwr_[A-Za-z0-9]+/);
  const read = await org.api.get(`/v1/messages/${stored.id}`);
  const source = await org.api.get(`/v1/messages/${stored.id}/source`);
  expect(read.status).toBe(200);
  expect(source.status).toBe(200);
  // the source's text parts are quoted-printable: long lines folded with a soft break
  const unfolded = String(source.body).replace(/=\r?\n/g, '');
  for (const seen of [JSON.stringify(stored), JSON.stringify(read.body), unfolded]) {
    expect(seen).toContain('sealed.pwr_');
    expect(seen).not.toContain(token);
  }
  // a sealed link opens nothing
  const sealed = /reset-password\/(sealed\.pwr_[A-Za-z0-9]+)/.exec(stored.text!)![1]!;
  expect(await isPasswordResetUsable(h.deps, sealed)).toBe(false);

  expect(await resetPasswordWithToken(h.deps, token, 'another good password')).toMatchObject({ signedOut: 0 });
});

it('sends a sealed link still sealed when a key copies it into its own email: another address, a cc, another link around it', async () => {
  const org = await h.liveOrg();
  const email = `owner-${Date.now()}@people.test`;
  await createUser(h.deps, { orgId: org.orgId, email, password: 'a good long password', role: 'owner' });
  await requestPasswordReset(h.deps, email);
  await received(email);
  const stored = await h.deps.db.message.findFirstOrThrow({ where: { orgId: org.orgId, to: email } });
  const copy = { channelType: 'email', subject: stored.subject, text: stored.text, html: stored.html, tags: ['tidings-password-reset'] };

  const attacker = `attacker-${Date.now()}@elsewhere.test`;
  const sends = [
    { ...copy, to: attacker },
    { ...copy, to: email, cc: [attacker] },
    { ...copy, to: email, html: stored.html!.replace('<a href="', '<a href="https://elsewhere.test/?next=') },
  ];
  for (const body of sends) expect((await org.api.post('/v1/messages', body)).status).toBe(202);

  const [original, ...toOwner] = await received(email, 3);
  const copies = new Set([...(await received(attacker, 2)), ...toOwner]);
  expect(copies.size).toBe(3); // the cc'd copy reaches both addresses as one mail
  expect(String(original!.parsed.text)).toMatch(WORKING_LINK);
  for (const mail of copies) {
    expect(String(mail.parsed.text)).toContain('sealed.pwr_');
    expect(String(mail.parsed.text)).not.toMatch(WORKING_LINK);
    expect(String(mail.parsed.html)).not.toMatch(WORKING_LINK);
  }
});
