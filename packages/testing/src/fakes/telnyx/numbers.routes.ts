import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { inventory, TOLL_FREE } from '../number-inventory.ts';
import type { FakeTelnyxMessageState } from './messages.routes.ts';

type OwnedNumber = {
  id: string;
  record_type: 'phone_number';
  phone_number: string;
  status: string;
  phone_number_type: string;
  country_iso_alpha2: string;
  customer_reference: string | null;
  tags: string[];
  created_at: string;
  purchased_at: string;
  deletion_lock_enabled: boolean;
  external_pin: null;
};

const telnyxError = (c: Context, status: 401 | 404 | 422, code: string, title: string, detail: string) => c.json({ errors: [{ code, title, detail }] }, status);
/**
 * Telnyx's number search (`GET /v2/available_phone_numbers`), number orders (`POST /v2/number_orders`) and phone
 * numbers (`GET|PATCH|DELETE /v2/phone_numbers[/:id]`) as the SDK calls them, over an in-memory inventory. A number
 * that was already ordered is 422 "not available"; an unknown id 404.
 */
export function telnyxNumberRoutes(state: Pick<FakeTelnyxMessageState, 'messagingProfileIds' | 'profileOfNumber'>) {
  const owned = new Map<string, OwnedNumber>(); // by id
  const byNumber = (number: string) => [...owned.values()].find((n) => n.phone_number === number);
  const app = new Hono();
  app.use('/v2/*', async (c, next) => {
    if (!/^\/v2\/(available_phone_numbers|number_orders|phone_numbers)/.test(c.req.path)) return next();
    if (!c.req.header('authorization')?.startsWith('Bearer ')) return telnyxError(c, 401, '10009', 'Authentication failed', 'Missing API key');
    return next();
  });

  app.get('/v2/available_phone_numbers', (c) => {
    const q = (key: string) => c.req.query(`filter[${key}]`);
    const type = q('phone_number_type');
    const ndc = q('national_destination_code');
    if (ndc && (type === 'toll_free') !== TOLL_FREE.includes(ndc)) return c.json({ data: [], meta: { total_results: 0, best_effort_results: 0 } });
    const numbers = inventory({ ndc, contains: c.req.query('filter[phone_number][contains]'), type, limit: Number(q('limit') ?? 20) }).filter((n) => !byNumber(n));
    const data = numbers.map((phone_number) => ({
      record_type: 'available_phone_number',
      phone_number,
      vanity_format: '',
      best_effort: false,
      quickship: true,
      reservable: true,
      region_information: [
        { region_type: 'country_code', region_name: q('country_code') ?? 'US' },
        { region_type: 'state', region_name: 'CA' },
        { region_type: 'location', region_name: 'San Francisco' },
      ],
      cost_information: { upfront_cost: '1.00', monthly_cost: '1.00', currency: 'USD' },
      features: [{ name: 'sms' }, { name: 'mms' }, { name: 'voice' }],
    }));
    return c.json({ data, meta: { total_results: data.length, best_effort_results: 0 } });
  });

  app.post('/v2/number_orders', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { phone_numbers?: { phone_number: string }[]; customer_reference?: string; messaging_profile_id?: string };
    const requested = body.phone_numbers ?? [];
    if (requested.length === 0) return telnyxError(c, 422, '10004', 'Missing required parameter', 'phone_numbers is required');
    const profile = body.messaging_profile_id ?? null;
    if (profile !== null && !state.messagingProfileIds.has(profile))
      return telnyxError(c, 422, '10015', 'Invalid messaging profile', 'messaging_profile_id is not a profile of this account');
    for (const { phone_number } of requested) {
      if (!/^\+[1-9]\d{6,14}$/.test(phone_number)) return telnyxError(c, 422, '10016', 'Phone number must be in +E.164 format', phone_number);
      if (byNumber(phone_number)) return telnyxError(c, 422, '85001', 'Number not available', `${phone_number} is not available for ordering`);
    }
    const now = new Date().toISOString();
    const phoneNumbers = requested.map(({ phone_number }) => {
      const type = TOLL_FREE.some((p) => phone_number.startsWith(`+1${p}`)) ? 'toll_free' : 'local';
      const number: OwnedNumber = {
        id: String(BigInt(`0x${randomUUID().replace(/-/g, '').slice(0, 15)}`)),
        record_type: 'phone_number',
        phone_number,
        status: 'active',
        phone_number_type: type,
        country_iso_alpha2: 'US',
        customer_reference: body.customer_reference ?? null,
        tags: [],
        created_at: now,
        purchased_at: now,
        deletion_lock_enabled: false,
        external_pin: null,
      };
      owned.set(number.id, number);
      state.profileOfNumber.set(phone_number, profile);
      return {
        id: randomUUID(),
        record_type: 'number_order_phone_number',
        phone_number,
        phone_number_type: type,
        country_code: 'US',
        status: 'success',
        requirements_met: true,
        regulatory_requirements: [],
      };
    });
    return c.json({
      data: {
        id: randomUUID(),
        record_type: 'number_order',
        status: 'success',
        phone_numbers_count: phoneNumbers.length,
        phone_numbers: phoneNumbers,
        customer_reference: body.customer_reference ?? null,
        requirements_met: true,
        created_at: now,
        updated_at: now,
      },
    });
  });

  app.get('/v2/phone_numbers', (c) => {
    const number = c.req.query('filter[phone_number]');
    const data = [...owned.values()].filter((n) => !number || n.phone_number === number);
    return c.json({ data, meta: { page_number: 1, page_size: 20, total_pages: 1, total_results: data.length } });
  });
  app.get('/v2/phone_numbers/:id', (c) => {
    const number = owned.get(c.req.param('id'));
    return number ? c.json({ data: number }) : telnyxError(c, 404, '10005', 'Resource not found', 'Phone number not found');
  });
  app.patch('/v2/phone_numbers/:id', async (c) => {
    const number = owned.get(c.req.param('id'));
    if (!number) return telnyxError(c, 404, '10005', 'Resource not found', 'Phone number not found');
    const body = (await c.req.json().catch(() => ({}))) as { customer_reference?: string; tags?: string[] };
    if (body.customer_reference !== undefined) number.customer_reference = body.customer_reference;
    if (body.tags) number.tags = body.tags;
    return c.json({ data: number });
  });
  app.delete('/v2/phone_numbers/:id', (c) => {
    const number = owned.get(c.req.param('id'));
    if (!number) return telnyxError(c, 404, '10005', 'Resource not found', 'Phone number not found');
    owned.delete(number.id);
    return c.json({ data: { ...number, status: 'deleted' } });
  });
  return app;
}
