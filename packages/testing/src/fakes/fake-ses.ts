import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createFakeRateLimit, type FakeRateLimit } from './fake-rate-limit.ts';
import { startFakeServer, type FakeServer } from './fake-server.ts';

export type FakeSesEmail = { id: string; from: string; to: string[]; subject: string; text?: string; html?: string; tags: Record<string, string>; configurationSet?: string };

/** An email identity (a domain) of this fake account; a test sets `status` to what SES's own DNS check found. */
export type FakeSesIdentity = { name: string; status: 'PENDING' | 'SUCCESS' | 'FAILED'; tokens: string[]; configurationSet?: string };

export type FakeSes = FakeServer & {
  state: {
    emails: FakeSesEmail[];
    identities: Map<string, FakeSesIdentity>;
    /** The account's MaxSendRate: GetAccount says it, and SendEmail beyond it is throttled (TooManyRequestsException). */
    limit: FakeRateLimit;
    /** SendEmail calls throttled. */
    throttled: number;
  };
  /** The SES event SNS would carry for an email this fake accepted (`Delivery`, `Bounce`, `Complaint`, `Open`, `Click`). */
  event(email: FakeSesEmail, eventType: string, details?: Record<string, unknown>): Record<string, unknown>;
};

type SendEmailBody = {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[] };
  Content?: { Simple?: { Subject?: { Data?: string }; Body?: { Text?: { Data?: string }; Html?: { Data?: string } } } };
  EmailTags?: { Name: string; Value: string }[];
  ConfigurationSetName?: string;
};

/** An SES error as the SDK reads it: the type in `x-amzn-errortype`, the message in the body. */
const sesError = (type: string, message: string, status: 400 | 403 | 404 | 429) =>
  new Response(JSON.stringify({ message }), { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': type } });

/**
 * A loopback SES (API v2) that the real `@aws-sdk/client-sesv2` talks to (`SES_ENDPOINT`): SendEmail with simple
 * content, refusing unsigned requests and an empty recipient list, throttling beyond `maxSendRate` as SES does (GetAccount
 * tells it), recording what it accepted; and domain identities
 * with Easy DKIM (create, get, delete under /v2/email/identities).
 * @example const ses = await startFakeSes(); new SESv2Client({ endpoint: ses.url, region: 'us-east-1', credentials });
 */
export async function startFakeSes(options: { maxSendRate?: number } = {}): Promise<FakeSes> {
  const state = { emails: [] as FakeSesEmail[], identities: new Map<string, FakeSesIdentity>(), limit: createFakeRateLimit(options.maxSendRate ?? 0), throttled: 0 };
  const identityOf = (identity: FakeSesIdentity) => ({
    IdentityType: 'DOMAIN',
    VerifiedForSendingStatus: identity.status === 'SUCCESS',
    VerificationStatus: identity.status,
    DkimAttributes: { SigningEnabled: true, Status: identity.status, Tokens: identity.tokens, SigningAttributesOrigin: 'AWS_SES' },
    ConfigurationSetName: identity.configurationSet,
  });
  const routes = new Hono();
  routes.use('/v2/email/identities*', async (c, next) => {
    if (!c.req.header('authorization')?.startsWith('AWS4-HMAC-SHA256 Credential=')) return sesError('UnrecognizedClientException', 'Missing SigV4 signature', 403);
    return next();
  });
  routes.post('/v2/email/identities', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { EmailIdentity?: string; ConfigurationSetName?: string };
    const name = body.EmailIdentity?.toLowerCase();
    if (!name?.includes('.')) return sesError('BadRequestException', 'EmailIdentity is required', 400);
    if (state.identities.has(name)) return sesError('AlreadyExistsException', `Email identity ${name} already exist.`, 400);
    const identity: FakeSesIdentity = { name, status: 'PENDING', tokens: [0, 1, 2].map(() => randomUUID().replace(/-/g, '')), configurationSet: body.ConfigurationSetName };
    state.identities.set(name, identity);
    const { ConfigurationSetName: _set, VerificationStatus: _status, ...created } = identityOf(identity);
    return c.json(created);
  });
  routes.get('/v2/email/identities/:name', (c) => {
    const identity = state.identities.get(decodeURIComponent(c.req.param('name')));
    return identity ? c.json(identityOf(identity)) : sesError('NotFoundException', 'Email identity does not exist.', 404);
  });
  routes.delete('/v2/email/identities/:name', (c) => {
    if (!state.identities.delete(decodeURIComponent(c.req.param('name')))) return sesError('NotFoundException', 'Email identity does not exist.', 404);
    return c.json({});
  });
  routes.get('/v2/email/account', (c) => {
    if (!c.req.header('authorization')?.startsWith('AWS4-HMAC-SHA256 Credential=')) return sesError('UnrecognizedClientException', 'Missing SigV4 signature', 403);
    const rate = state.limit.ratePerSecond || 14;
    return c.json({ SendQuota: { Max24HourSend: 50_000, MaxSendRate: rate, SentLast24Hours: state.emails.length }, SendingEnabled: true, ProductionAccessEnabled: true });
  });
  routes.post('/v2/email/outbound-emails', async (c) => {
    if (!c.req.header('authorization')?.startsWith('AWS4-HMAC-SHA256 Credential=')) return sesError('UnrecognizedClientException', 'Missing SigV4 signature', 403);
    if (!state.limit.take().isAllowed) {
      state.throttled += 1;
      return sesError('TooManyRequestsException', 'Maximum sending rate exceeded.', 429);
    }
    const body = (await c.req.json().catch(() => ({}))) as SendEmailBody;
    const to = body.Destination?.ToAddresses ?? [];
    if (!body.FromEmailAddress || to.length === 0) return sesError('BadRequestException', 'FromEmailAddress and a destination are required', 400);
    if (to.some((address) => address.startsWith('rejected@'))) return sesError('MessageRejected', 'Email address is not verified', 400);
    const simple = body.Content?.Simple;
    const email: FakeSesEmail = {
      id: `0100${randomUUID().replace(/-/g, '')}-000000`,
      from: body.FromEmailAddress,
      to,
      subject: simple?.Subject?.Data ?? '',
      text: simple?.Body?.Text?.Data,
      html: simple?.Body?.Html?.Data,
      tags: Object.fromEntries((body.EmailTags ?? []).map((t) => [t.Name, t.Value])),
      configurationSet: body.ConfigurationSetName,
    };
    state.emails.push(email);
    return c.json({ MessageId: email.id });
  });
  const server = await startFakeServer(routes);
  return Object.assign(server, {
    state,
    event(email: FakeSesEmail, eventType: string, details: Record<string, unknown> = {}) {
      const tags = Object.fromEntries(Object.entries(email.tags).map(([name, value]) => [name, [value]]));
      return { eventType, mail: { timestamp: new Date().toISOString(), messageId: email.id, source: email.from, destination: email.to, tags }, ...details };
    },
  });
}
