// OpenTelemetry tracing, off unless an OTLP endpoint is configured. Imports nothing but the (no-op by default)
// @opentelemetry/api, so an app can load it before anything it instruments (pg, ioredis, http).
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type ContextManager,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import type { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';

export { SpanKind };

type Started = { shutdown(): Promise<void>; recordRecipients: boolean; followAwaits: boolean; queueTelemetry: BullMQOtel; suppressTracing(parent: Context): Context };
let started: Started | null = null;

const TRACER = 'tidings';
// What the probes and Prometheus ask every few seconds: no trace of theirs.
const untracedPaths = new Set(['/healthz', '/readyz', '/metrics']);

/** Whether the environment asks for traces: an OTLP endpoint is set and the SDK is not disabled. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_TRACES_EXPORTER !== 'none';
}

/**
 * Starts the SDK when `tracingConfigured()`: spans exported as OTLP/HTTP JSON to `OTEL_EXPORTER_OTLP_ENDPOINT` (the
 * standard `OTEL_*` variables apply: sampler, batch timings, resource); `OTEL_SERVICE_NAME` defaults to `serviceName`.
 * Must run before pg and ioredis are first required (the instrumentations patch them as they load): each app's entry
 * imports its `tracing.ts` first. Off, it loads no SDK.
 *
 * `followAwaits` (the default): the active span follows the process's work across every await (Node's
 * AsyncLocalStorage), so each Postgres and Redis call is a span of the job or request that made it. Without it (the
 * API, unless `OTEL_API_STATEMENT_SPANS=true`), a span is active only while code runs synchronously inside it, and a
 * request's trace is handed on explicitly (`requestTrace`, to the jobs it adds): on Node 20 following awaits turns on
 * promise hooks for the whole process, and that alone cost 10 to 15 % of message.send's CPU (measured), more than
 * every span of the request together.
 * @example startTracing('tidings-api', process.env, { followAwaits: process.env.OTEL_API_STATEMENT_SPANS === 'true' });
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env, options: { followAwaits?: boolean } = {}): boolean {
  if (started || !tracingConfigured(env)) return false;
  const followAwaits = options.followAwaits ?? true;
  // required here, not imported: with tracing off no SDK code is loaded
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  const { suppressTracing } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  // Traces only (Prometheus and the JSON log stay the metrics and the logs): the trace SDK alone, exporting OTLP/HTTP
  // in batches (OTEL_BSP_* apply); the sampler comes from OTEL_TRACES_SAMPLER, the resource from OTEL_RESOURCE_ATTRIBUTES.
  const provider = new NodeTracerProvider({
    resource: defaultResource()
      .merge(detectResources({ detectors: [envDetector] }))
      .merge(resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || serviceName })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // W3C trace context and baggage; the context manager follows awaits (AsyncLocalStorage) unless told not to
  provider.register(followAwaits ? {} : { contextManager: new SynchronousContextManager() });
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    // No HTTP instrumentation: the server span is ours (inServerSpan), cheaper than patching every request's
    // emitters, and outgoing calls (providers' SDKs, webhook POSTs) get spans of ours with the attributes that matter
    // and no URL (a customer's webhook URL may carry a token); nor does a provider receive our trace ids.
    // Statements are spans only where the active span follows awaits: elsewhere they would rarely find their parent.
    instrumentations: followAwaits
      ? [
          // statements with their parameters' placeholders only, never the values; a pool checkout is no span of its own
          new PgInstrumentation({ enhancedDatabaseReporting: false, ignoreConnectSpans: true, requireParentSpan: true }),
          // the command and key only, never the arguments (a job's data, a rate-limit key)
          new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
        ]
      : [],
  });
  started = {
    shutdown: async () => {
      unregister();
      await provider.shutdown();
    },
    recordRecipients: env.OTEL_RECORD_RECIPIENTS === 'true',
    followAwaits,
    queueTelemetry: withoutSpansUnderProducers(new BullMQOtel({ tracerName: TRACER }), suppressTracing),
    suppressTracing,
  };
  return true;
}

/**
 * The active context of code running synchronously inside `context.with` (a call stack), without async hooks: after
 * an await the root context is active again. What a process that hands its trace on explicitly needs.
 */
class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

/**
 * BullMQ's telemetry with no spans inside its producer spans: an enqueue's span already says what was added to which
 * queue, and the Redis script calls under it (one `evalsha` a job, a MULTI of them for addBulk) cost SDK work per job
 * and told nothing more. The job still carries the producer span's context (BullMQ reads it before running the add),
 * and consumer spans, with everything under them, are as before.
 */
function withoutSpansUnderProducers(telemetry: BullMQOtel, suppress: (parent: Context) => Context): BullMQOtel {
  const producers = new WeakSet<Span>();
  const { tracer, contextManager } = telemetry;
  const startSpan = tracer.startSpan.bind(tracer);
  tracer.startSpan = (name, options, parent) => {
    const span = startSpan(name, options, parent);
    if (options?.kind === SpanKind.PRODUCER) producers.add((span as BullMQOTelSpan).span);
    return span;
  };
  const runWith = contextManager.with.bind(contextManager);
  contextManager.with = (ctx, fn) => {
    const span = trace.getSpan(ctx);
    return runWith(span && producers.has(span) ? suppress(ctx) : ctx, fn);
  };
  return telemetry;
}

/** Sends the spans still buffered and stops; what a process does last on SIGTERM. A no-op when tracing is off. */
export async function stopTracing(): Promise<void> {
  const current = started;
  started = null;
  await current?.shutdown().catch(() => {}); // a collector gone away must not hold up the exit
}

/** Whether this process traces. */
export function tracingOn(): boolean {
  return started !== null;
}

/** Whether a span may name a recipient (`OTEL_RECORD_RECIPIENTS=true`); by default it may not. */
export function recordRecipients(): boolean {
  return started?.recordRecipients ?? false;
}

/**
 * BullMQ's `telemetry` option for queues and workers while tracing: producer and consumer spans, with the trace
 * context carried in the job's options (never its data). `undefined` when off, so BullMQ does nothing extra.
 * @example new Worker('email', processor, { connection, telemetry: queueTelemetry() });
 */
export function queueTelemetry(): BullMQOtel | undefined {
  return started?.queueTelemetry;
}

/**
 * Runs `work` with no span for it nor for the Postgres or Redis calls inside it: for bookkeeping every request does
 * (a rate-limit check), whose spans would cost SDK work per request and tell on-call nothing; its time stays inside
 * the request's server span. Off, just `work()`.
 * @example const [allowed] = await untraced(() => client.slidingWindow(key, windowMs, limit, member));
 */
export function untraced<T>(work: () => T): T {
  if (!started) return work();
  return context.with(started.suppressTracing(context.active()), work);
}

/** The trace a request hands on to the work it causes (`inServerSpan` gives it): a context holding the request's span. */
export type RequestTrace = Context;

type TraceFields = { traceId?: string; spanId?: string };

function fieldsOf(span: Span | undefined): TraceFields {
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/**
 * `{ traceId, spanId }` of the active span, for a log line (the logger's mixin), where the active span follows
 * awaits; empty otherwise, and when no trace is active.
 */
export function traceFields(): TraceFields {
  return started?.followAwaits ? fieldsOf(trace.getActiveSpan()) : {};
}

/**
 * `{ traceId, spanId }` of a request's span for the request's own logger, where the active span does not follow
 * awaits (elsewhere the logger's mixin adds them to every line); empty otherwise.
 * @example const logger = deps.logger.child({ requestId, ...requestTraceFields(trace) });
 */
export function requestTraceFields(requestTrace: RequestTrace | undefined): TraceFields {
  return started && !started.followAwaits && requestTrace ? fieldsOf(trace.getSpan(requestTrace)) : {};
}

/**
 * Runs `work` with `requestTrace` active (the producer spans of the jobs it adds are the request's children); without
 * one, or off, just `work()`.
 */
export function withTrace<T>(requestTrace: RequestTrace | undefined, work: () => T): T {
  return started && requestTrace ? context.with(requestTrace, work) : work();
}

/**
 * BullMQ's `telemetry` job option that makes a job continue `requestTrace` (in its options in Redis, never its data):
 * for jobs added together for several requests (one addBulk), each continuing its own. Undefined when off.
 */
export function jobTelemetry(requestTrace: RequestTrace | undefined): { metadata: string } | undefined {
  return started && requestTrace ? { metadata: started.queueTelemetry.contextManager.getMetadata(requestTrace) } : undefined;
}

/** The W3C `traceparent` (and `tracestate`) of the active span, to send along; empty when off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (started) propagation.inject(context.active(), carrier);
  return carrier;
}

/** What the server span learns once the request is answered. */
export type ServedRequest = { route: string; status: number; hasQuery: boolean };

// the caller's traceparent / tracestate, read from the request's headers
const headerGetter: TextMapGetter<(name: string) => string | undefined> = { get: (header, key) => header(key), keys: () => [] };

/**
 * Runs the handling of one incoming request in a SERVER span, continuing the caller's `traceparent`; the span is
 * named after the route pattern (`GET /v1/messages/:id`) once `handle` has answered. It holds the method, the route
 * in place of the path and a placeholder in place of the query (a path or a query may hold an address or an
 * unsubscribe token), and the status. `handle` gets the request's trace, to hand on. Off, or for the probes and
 * /metrics, just `handle(undefined)`.
 * @example await inServerSpan(c.req.method, c.req.path, (name) => c.req.header(name), async (trace) => { await next(); return served; });
 */
export async function inServerSpan(
  method: string,
  path: string,
  header: (name: string) => string | undefined,
  handle: (requestTrace: RequestTrace | undefined) => Promise<ServedRequest>,
): Promise<void> {
  if (!started || untracedPaths.has(path)) {
    await handle(undefined);
    return;
  }
  const parent = propagation.extract(ROOT_CONTEXT, header, headerGetter);
  const span = trace.getTracer(TRACER).startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  try {
    const requestTrace = trace.setSpan(parent, span);
    const { route, status, hasQuery } = await context.with(requestTrace, () => handle(requestTrace));
    span.updateName(`${method} ${route}`);
    span.setAttributes({ 'http.route': route, 'url.path': route, 'http.response.status_code': status, ...(hasQuery ? { 'url.query': '[redacted]' } : {}) });
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` in a span of its own (a provider call, a webhook delivery), ended when `work` settles; a throw marks
 * it as an error by the error's name only (a message may quote a recipient or a statement's values). Off, `work`
 * runs with `undefined` and nothing else happens.
 * @example await inSpan('provider.send', SpanKind.CLIENT, { 'tidings.provider': 'resend' }, (span) => call());
 */
export async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!started) return work(undefined);
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}
