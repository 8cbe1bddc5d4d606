import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getDomain } from 'tldts';

type FakeDomain = { id: string; name: string; created_at: string; status: string; region: string; records: object[] };

const error = (c: Context, status: 401 | 404 | 422, name: string, message: string) => c.json({ statusCode: status, name, message }, status);

/** Record names as Resend gives them: relative to the zone (the registrable domain). */
function relative(label: string, domainName: string): string {
  const zone = getDomain(domainName) ?? domainName;
  return domainName === zone ? label : `${label}.${domainName.slice(0, -(zone.length + 1))}`;
}

function recordsFor(domainName: string, region: string) {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const dkim = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const base = { ttl: 'Auto', status: 'not_started' };
  return [
    { record: 'SPF', name: relative('send', domainName), type: 'MX', value: `feedback-smtp.${region}.amazonses.com`, priority: 10, ...base },
    { record: 'SPF', name: relative('send', domainName), type: 'TXT', value: '"v=spf1 include:amazonses.com ~all"', ...base },
    { record: 'DKIM', name: relative('resend._domainkey', domainName), type: 'TXT', value: `p=${dkim}`, ...base },
  ];
}

/**
 * The /domains endpoints of Resend as its SDK calls them (create, list, get, verify, remove), over an in-memory
 * store; an unknown id is 404 `not_found`, a name that is not a domain 422 `validation_error`.
 */
export function resendDomainRoutes() {
  const domains = new Map<string, FakeDomain>();
  const app = new Hono();
  app.use('/domains/*', async (c, next) => (c.req.header('authorization')?.startsWith('Bearer ') ? next() : error(c, 401, 'missing_api_key', 'Missing API key')));
  app.use('/domains', async (c, next) => (c.req.header('authorization')?.startsWith('Bearer ') ? next() : error(c, 401, 'missing_api_key', 'Missing API key')));

  app.post('/domains', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { name?: string; region?: string };
    if (!body.name || !/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(body.name)) return error(c, 422, 'validation_error', 'The `name` field must be a valid domain.');
    const region = body.region ?? 'us-east-1';
    const domain: FakeDomain = { id: randomUUID(), name: body.name, created_at: new Date().toISOString(), status: 'not_started', region, records: recordsFor(body.name, region) };
    domains.set(domain.id, domain);
    return c.json({ ...domain, capabilities: { sending: 'enabled', receiving: 'disabled' }, open_tracking: false, click_tracking: false }, 201);
  });
  app.get('/domains', (c) =>
    c.json({
      object: 'list',
      has_more: false,
      data: [...domains.values()].map(({ records: _records, ...d }) => ({ ...d, capabilities: { sending: 'enabled', receiving: 'disabled' } })),
    }),
  );
  app.get('/domains/:id', (c) => {
    const domain = domains.get(c.req.param('id'));
    return domain ? c.json({ object: 'domain', ...domain, capabilities: { sending: 'enabled', receiving: 'disabled' } }) : error(c, 404, 'not_found', 'Domain not found');
  });
  app.post('/domains/:id/verify', (c) => {
    const domain = domains.get(c.req.param('id'));
    if (!domain) return error(c, 404, 'not_found', 'Domain not found');
    domain.status = 'pending';
    return c.json({ object: 'domain', id: domain.id });
  });
  app.delete('/domains/:id', (c) => {
    const id = c.req.param('id');
    if (!domains.delete(id)) return error(c, 404, 'not_found', 'Domain not found');
    return c.json({ object: 'domain', id, deleted: true });
  });
  return app;
}
