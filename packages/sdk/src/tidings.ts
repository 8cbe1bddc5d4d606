import { defaultSleep, HttpClient, type RequestOptions, type RequestSpec } from './client.ts';
import { DEFAULT_RETRY, type RetryOptions } from './retry.ts';
import { ApiKeys } from './resources/api-keys.resource.ts';
import { Broadcasts } from './resources/broadcasts.resource.ts';
import { Contacts } from './resources/contacts.resource.ts';
import { EmailDomains } from './resources/email-domains.resource.ts';
import { Messages } from './resources/messages.resource.ts';
import { PhoneNumbers } from './resources/phone-numbers.resource.ts';
import { Segments } from './resources/segments.resource.ts';
import { Topics } from './resources/topics.resource.ts';
import { Verifications } from './resources/verifications.resource.ts';
import { OrganizationSettings } from './resources/organization.resource.ts';
import { Templates } from './resources/templates.resource.ts';
import { Webhooks } from './resources/webhooks.resource.ts';
import { Suppressions } from './resources/suppressions.resource.ts';
import { Sandbox } from './resources/sandbox.resource.ts';
import { AuditEvents } from './resources/audit-events.resource.ts';

export type TidingsOptions = {
  /** `sk_live_...` or `sk_test_...`. Default: the `TIDINGS_API_KEY` environment variable. */
  apiKey?: string;
  /** The API's base URL including `/v1`. Default: `TIDINGS_BASE_URL`, else `http://localhost:3000/v1`. */
  baseUrl?: string;
  /** Retries after the first attempt for 429, 5xx and (for GET or idempotency-keyed calls) network errors. Default 2. */
  maxRetries?: number;
  /** Per attempt, answer body included. Default 30 s. */
  timeoutMs?: number;
  /** Backoff tuning: `initialDelayMs` (500), `maxDelayMs` (8000), `maxRetryAfterMs` (60000). */
  retry?: Partial<Omit<RetryOptions, 'maxRetries'>>;
  /** A `fetch` to use instead of the global one (a proxy agent, a test double, an older runtime's polyfill). */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** How to wait between retries; replace it to observe or shorten the waits. */
  sleep?: (ms: number) => Promise<void>;
};

const DEFAULT_BASE_URL = 'http://localhost:3000/v1';

/** Reads a variable where there is a `process.env` (Node, Bun, Deno's compatibility); elsewhere pass options. */
function fromEnvironment(name: string): string | undefined {
  const processLike = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return processLike?.env?.[name] || undefined;
}

/**
 * The Tidings API client. Groups follow the API: `tidings.apiKeys`, `tidings.webhooks`, ...
 * @example
 * const tidings = new Tidings({ apiKey: 'sk_test_...', baseUrl: 'http://localhost:3000/v1' });
 * const key = await tidings.apiKeys.create({ name: 'CI' });
 */
export class Tidings {
  readonly apiKeys: ApiKeys;
  readonly webhooks: Webhooks;
  readonly emailDomains: EmailDomains;
  readonly phoneNumbers: PhoneNumbers;
  readonly messages: Messages;
  readonly contacts: Contacts;
  readonly templates: Templates;
  readonly segments: Segments;
  readonly topics: Topics;
  readonly verifications: Verifications;
  readonly organization: OrganizationSettings;
  readonly suppressions: Suppressions;
  readonly sandbox: Sandbox;
  readonly broadcasts: Broadcasts;
  readonly auditEvents: AuditEvents;
  private readonly client: HttpClient;

  constructor(options: TidingsOptions = {}) {
    const apiKey = options.apiKey ?? fromEnvironment('TIDINGS_API_KEY');
    if (!apiKey) throw new TypeError('Tidings: pass { apiKey } or set TIDINGS_API_KEY');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('Tidings: no global fetch in this runtime; pass { fetch }');
    this.client = new HttpClient({
      apiKey,
      baseUrl: options.baseUrl ?? fromEnvironment('TIDINGS_BASE_URL') ?? DEFAULT_BASE_URL,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry, maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries },
      // Called unbound: some runtimes' fetch throws "Illegal invocation" when called as a method of another object.
      fetch: (input, init) => fetchImpl(input, init),
      headers: options.headers ?? {},
      sleep: options.sleep ?? defaultSleep,
    });
    this.apiKeys = new ApiKeys(this.client);
    this.webhooks = new Webhooks(this.client);
    this.emailDomains = new EmailDomains(this.client);
    this.phoneNumbers = new PhoneNumbers(this.client);
    this.messages = new Messages(this.client);
    this.contacts = new Contacts(this.client);
    this.templates = new Templates(this.client);
    this.segments = new Segments(this.client);
    this.topics = new Topics(this.client);
    this.verifications = new Verifications(this.client);
    this.organization = new OrganizationSettings(this.client);
    this.suppressions = new Suppressions(this.client);
    this.sandbox = new Sandbox(this.client);
    this.broadcasts = new Broadcasts(this.client);
    this.auditEvents = new AuditEvents(this.client);
  }

  /**
   * Calls any operation by method and path, with the same auth, retries and errors as the typed methods.
   * @example const page = await tidings.request<{ data: unknown[] }>({ method: 'GET', path: '/api-keys', query: { limit: 5 } });
   */
  request<T = unknown>(spec: RequestSpec, options?: RequestOptions): Promise<T> {
    return this.client.request<T>(spec, options);
  }
}
