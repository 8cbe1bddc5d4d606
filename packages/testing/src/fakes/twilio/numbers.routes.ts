import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { inventory, TOLL_FREE } from '../number-inventory.ts';

/** A number this fake account owns, as Twilio's IncomingPhoneNumber resource (the fields we read, and a few more). */
export type FakeTwilioIncomingNumber = {
  sid: string;
  account_sid: string;
  phone_number: string;
  friendly_name: string;
  sms_url: string;
  sms_method: string;
  capabilities: { voice: boolean; sms: boolean; mms: boolean; fax: boolean };
  status: 'in-use';
  date_created: string;
  uri: string;
};

const TYPES: Record<string, 'local' | 'toll_free' | 'mobile'> = { 'Local.json': 'local', 'TollFree.json': 'toll_free', 'Mobile.json': 'mobile' };

export const twilioError = (status: 400 | 401 | 404, code: number, message: string) =>
  new Response(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }), { status, headers: { 'content-type': 'application/json' } });

/**
 * Twilio's number search (`GET .../AvailablePhoneNumbers/{country}/{Local|TollFree|Mobile}.json`) and incoming
 * numbers (`GET|POST .../IncomingPhoneNumbers.json`, `POST|DELETE .../IncomingPhoneNumbers/{sid}.json`) as the SDK
 * calls them, over the same in-memory US inventory as the Telnyx fake. Buying a number already owned is Twilio's 400
 * with error 21422; an unknown sid is 404 with 20404. `isAuthorized` checks the account's basic auth.
 */
export function twilioNumberRoutes(accountSid: string, isAuthorized: (c: Context) => boolean, owned: Map<string, FakeTwilioIncomingNumber>) {
  const byNumber = (number: string) => [...owned.values()].find((n) => n.phone_number === number);
  const base = '/2010-04-01/Accounts/:sid';
  const app = new Hono();
  app.use(`${base}/*`, async (c, next) => {
    if (!/\/(AvailablePhoneNumbers|IncomingPhoneNumbers)/.test(c.req.path)) return next();
    if (!isAuthorized(c) || c.req.param('sid') !== accountSid) return twilioError(401, 20003, 'Authenticate');
    return next();
  });

  app.get(`${base}/AvailablePhoneNumbers/:country/:type`, (c) => {
    const type = TYPES[c.req.param('type')];
    const country = c.req.param('country');
    if (!type) return twilioError(404, 20404, 'The requested resource was not found');
    if (country !== 'US') return c.json({ uri: c.req.path, available_phone_numbers: [] });
    const areaCode = c.req.query('AreaCode');
    if (areaCode && (type === 'toll_free') !== TOLL_FREE.includes(areaCode)) return c.json({ uri: c.req.path, available_phone_numbers: [] });
    const numbers = inventory({ ndc: areaCode, contains: c.req.query('Contains'), type, limit: Number(c.req.query('PageSize') ?? 50) }).filter((n) => !byNumber(n));
    const available_phone_numbers = numbers.map((phone_number) => ({
      friendly_name: `(${phone_number.slice(2, 5)}) ${phone_number.slice(5, 8)}-${phone_number.slice(8)}`,
      phone_number,
      lata: '722',
      locality: 'San Francisco',
      rate_center: 'SNFC CNTRL',
      latitude: '37.780000',
      longitude: '-122.420000',
      region: 'CA',
      postal_code: '94103',
      iso_country: country,
      address_requirements: 'none',
      beta: false,
      // Twilio's own capitalisation
      capabilities: { voice: true, SMS: true, MMS: true },
    }));
    return c.json({ uri: c.req.path, available_phone_numbers });
  });

  app.get(`${base}/IncomingPhoneNumbers.json`, (c) => {
    const number = c.req.query('PhoneNumber');
    const incoming_phone_numbers = [...owned.values()].filter((n) => !number || n.phone_number === number);
    return c.json({
      incoming_phone_numbers,
      uri: c.req.path,
      page: 0,
      page_size: 50,
      start: 0,
      end: incoming_phone_numbers.length - 1,
      next_page_uri: null,
      previous_page_uri: null,
    });
  });
  app.post(`${base}/IncomingPhoneNumbers.json`, async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const phone_number = form.get('PhoneNumber') ?? '';
    if (!/^\+[1-9]\d{6,14}$/.test(phone_number)) return twilioError(400, 21421, 'PhoneNumber is invalid');
    if (byNumber(phone_number)) return twilioError(400, 21422, 'PhoneNumber requested is not available');
    const sid = `PN${randomBytes(16).toString('hex')}`;
    const number: FakeTwilioIncomingNumber = {
      sid,
      account_sid: accountSid,
      phone_number,
      friendly_name: form.get('FriendlyName') ?? phone_number,
      sms_url: form.get('SmsUrl') ?? '',
      sms_method: form.get('SmsMethod') ?? 'POST',
      capabilities: { voice: true, sms: true, mms: true, fax: false },
      status: 'in-use',
      date_created: new Date().toUTCString(),
      uri: `/2010-04-01/Accounts/${accountSid}/IncomingPhoneNumbers/${sid}.json`,
    };
    owned.set(sid, number);
    return c.json(number, 201);
  });
  app.post(`${base}/IncomingPhoneNumbers/:file`, async (c) => {
    const number = owned.get(c.req.param('file').replace(/\.json$/, ''));
    if (!number) return twilioError(404, 20404, 'The requested resource was not found');
    const form = new URLSearchParams(await c.req.text());
    if (form.has('FriendlyName')) number.friendly_name = form.get('FriendlyName')!;
    if (form.has('SmsUrl')) number.sms_url = form.get('SmsUrl')!;
    return c.json(number);
  });
  app.delete(`${base}/IncomingPhoneNumbers/:file`, (c) => {
    const sid = c.req.param('file').replace(/\.json$/, '');
    if (!owned.delete(sid)) return twilioError(404, 20404, 'The requested resource was not found');
    return c.body(null, 204);
  });
  return app;
}
