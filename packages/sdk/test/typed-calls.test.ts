import { defaultSleep, HttpClient } from '../src/client.ts';
import { DEFAULT_RETRY } from '../src/retry.ts';
import type { Message, MessageWithEvents } from '../src/index.ts';

// `call` and `list` take their input and result types from the operation id (openapi.generated.ts, generated from
// the served document), so a method whose body, path parameters, query or answer drifts from its operation does not
// compile. Each `@ts-expect-error` below is a drift `npm run typecheck` must refuse: were the types `any` or loose,
// the directive itself would be the error.

const sent: Array<{ method: string; url: string; body: unknown }> = [];
const client = new HttpClient({
  apiKey: 'sk_test_types',
  baseUrl: 'http://sdk.invalid/v1',
  timeoutMs: 1_000,
  retry: { ...DEFAULT_RETRY, maxRetries: 0 },
  headers: {},
  sleep: defaultSleep,
  fetch: async (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: String(input), body: init?.body ? JSON.parse(String(init.body)) : undefined });
    return new Response(JSON.stringify({ data: [], hasMore: false, nextCursor: null }), { status: 200, headers: { 'content-type': 'application/json' } });
  },
});

/** Well-typed calls, and the drifts the compiler refuses (only type-checked: the refused ones never run). */
async function calls() {
  const message: Message = await client.call('message.send', { body: { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' } });
  const withEvents: MessageWithEvents = await client.call('message.get', { params: { id: 'msg_1' } });
  const source: string = await client.call('message.getSource', { params: { id: 'msg_1' } });
  // biome-ignore lint/suspicious/noConfusingVoidType: a 204 answers nothing
  const nothing: void = await client.call('apiKey.delete', { params: { id: 'key_1' } });
  for await (const contact of client.list('contact.list', { query: { limit: 10, subscribed: 'true' } })) contact.email?.toLowerCase();

  // @ts-expect-error: message.send's body has no `subjectLine`
  await client.call('message.send', { body: { channelType: 'email', to: 'ada@example.com', subjectLine: 'Hi' } });
  // @ts-expect-error: channelType is 'email' or 'sms'
  await client.call('message.send', { body: { channelType: 'fax', to: 'ada@example.com' } });
  // @ts-expect-error: message.send requires a body
  await client.call('message.send', {});
  // @ts-expect-error: message.get's path has {id}, not {messageId}
  await client.call('message.get', { params: { messageId: 'msg_1' } });
  // @ts-expect-error: message.get takes no body
  await client.call('message.get', { params: { id: 'msg_1' }, body: { id: 'msg_1' } });
  // @ts-expect-error: message.get needs its path parameter
  await client.call('message.get');
  // @ts-expect-error: message.send answers a Message, which has no `events`
  const drifted: MessageWithEvents = await client.call('message.send', { body: { channelType: 'sms', to: '+14155550123', body: 'Hi' } });
  // @ts-expect-error: message.get answers JSON, not text
  const notText: string = await client.call('message.get', { params: { id: 'msg_1' } });
  // @ts-expect-error: contact.list's query has no `color`
  client.list('contact.list', { query: { color: 'red' } });
  // @ts-expect-error: phoneNumber.searchAvailable requires `country` in its query
  await client.call('phoneNumber.searchAvailable', { query: { areaCode: '415' } });
  // @ts-expect-error: not an operation
  await client.call('message.resend', {});
  return [message, withEvents, source, nothing, drifted, notText];
}

describe('calls typed by operation id', () => {
  it('sends what the typed input says: path parameters encoded, query in the URL, body as JSON', async () => {
    sent.length = 0;
    await client.call('message.get', { params: { id: 'msg 1/2' } });
    await client.call('message.send', { body: { channelType: 'sms', to: '+14155550123', body: 'Hi' } });
    await client.list('contact.list', { query: { limit: 10 } }).page();
    expect(sent).toEqual([
      { method: 'GET', url: 'http://sdk.invalid/v1/messages/msg%201%2F2', body: undefined },
      { method: 'POST', url: 'http://sdk.invalid/v1/messages', body: { channelType: 'sms', to: '+14155550123', body: 'Hi' } },
      { method: 'GET', url: 'http://sdk.invalid/v1/contacts?limit=10', body: undefined },
    ]);
    expect(typeof calls).toBe('function');
  });
});
