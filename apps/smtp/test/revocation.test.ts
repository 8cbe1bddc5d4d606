import { setApiKeyEnabled, setOrganizationSuspended } from '@tidings/core';
import { waitFor } from '@tidings/testing';
import { mailContent, rawSession } from './raw-session.ts';
import { setupSmtp } from './setup.ts';

let t: Awaited<ReturnType<typeof setupSmtp>>;
beforeAll(async () => {
  t = await setupSmtp({ API_KEY_CACHE_TTL_MS: '100', RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(() => t.close());

const signedIn = async (key: string) => {
  const session = await rawSession(t.server.port);
  expect(await session.login(key)).toMatch(/^235 /);
  return session;
};

describe('SMTP sessions follow the key and the organization as they are now', () => {
  it('ends an open session at once when its key is disabled (the key-change announcement), and queues nothing', async () => {
    const { orgId, keyId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    await setApiKeyEnabled({ deps: t.deps, orgId, mode: 'test' }, keyId, false);
    expect(await session.reply()).toMatch(/^421 4\.7\.0 The API key is no longer enabled/);
    await waitFor(() => session.isClosed, 5_000, 'the session to end');
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('refuses the next MAIL FROM with 535 when the key was disabled without an announcement reaching this server', async () => {
    const { orgId, keyId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await session.command('RSET')).toMatch(/^250 /);
    // written behind the server's back: only the cache's TTL (100 ms here) stands between the change and the session
    await t.deps.db.apiKey.update({ where: { id: keyId }, data: { disabledAt: new Date() } });
    const refused = await waitFor(
      async () => {
        const answer = await session.command('MAIL FROM:<hi@acme.test>');
        if (answer.startsWith('250')) await session.command('RSET');
        return answer.startsWith('250') ? null : answer;
      },
      5_000,
      'MAIL FROM to be refused',
    );
    expect(refused).toMatch(/^535 5\.7\.8 The API key is no longer enabled/);
    expect(await session.command('RCPT TO:<ada@example.com>')).toMatch(/^503 /);
    session.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('refuses a mail being received when its organization is suspended meanwhile: 535 at the end of DATA, nothing queued', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await session.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
    expect(await session.command('DATA')).toMatch(/^354 /);
    session.write('From: hi@acme.test\r\nTo: ada@example.com\r\nSubject: suspended meanwhile\r\n\r\n');
    await setOrganizationSuspended(t.deps, orgId, true);
    session.write('x\r\n.\r\n');
    expect(await session.reply()).toMatch(/^535 5\.7\.8 This organization is suspended: nothing was queued/);
    // the next mail of the session is refused at MAIL FROM, or the session was ended by the announcement
    expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^(535 5\.7\.8|421 4\.7\.0|closed)/);
    session.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('ends the idle sessions of a suspended organization, and keeps those of another organization', async () => {
    const suspended = await t.org({ mode: 'test' });
    const other = await t.org({ mode: 'test' });
    const session = await signedIn(suspended.key);
    const otherSession = await signedIn(other.key);
    await setOrganizationSuspended(t.deps, suspended.orgId, true);
    expect(await session.reply()).toMatch(/^421 4\.7\.0 This organization is suspended/);
    expect(await otherSession.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await otherSession.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
    expect(await otherSession.command('DATA')).toMatch(/^354 /);
    otherSession.write(mailContent('still sending'));
    expect(await otherSession.reply()).toMatch(/^250 2\.0\.0 queued as msg_/);
    otherSession.close();
  });
});
