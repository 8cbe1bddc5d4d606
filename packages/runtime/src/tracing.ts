// OpenTelemetry tracing, off unless an OTLP endpoint is configured: the SDK is started here and described to
// @tidings/telemetry (setTracingState), whose helpers core and the apps record spans with. Imports nothing but the
// (no-op by default) @opentelemetry/api and that package, so an app can load it before anything it instruments (pg,
// ioredis, http).
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { setTracingState, TRACER, type RequestTrace } from '@tidings/telemetry';
import { SynchronousContextManager } from './synchronous-context.ts';
import type { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';

export {
  inSpan,
  jobTelemetry,
  recordRecipients,
  requestTraceFields,
  SpanKind,
  traceFields,
  traceHeaders,
  tracingOn,
  untraced,
  withTrace,
  type RequestTrace,
} from '@tidings/telemetry';

type Started = { shutdown(): Promise<void>; queueTelemetry: BullMQOtel };
let started: Started | null = null;

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
  // Spans under a producer span exist only where statements are spans: elsewhere (the API) BullMQ's telemetry goes
  // unwrapped, as the wrapper's per-add work cost the API more CPU than all of a send's spans (bench:cpu-cost).
  const bullmq = new BullMQOtel({ tracerName: TRACER });
  const queueTelemetry = followAwaits ? withoutSpansUnderProducers(bullmq, suppressTracing) : bullmq;
  started = {
    shutdown: async () => {
      unregister();
      await provider.shutdown();
    },
    queueTelemetry,
  };
  setTracingState({
    recordRecipients: env.OTEL_RECORD_RECIPIENTS === 'true',
    followAwaits,
    suppressTracing,
    jobMetadata: (requestTrace) => queueTelemetry.contextManager.getMetadata(requestTrace),
  });
  return true;
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
  setTracingState(null);
  await current?.shutdown().catch(() => {}); // a collector gone away must not hold up the exit
}

/**
 * BullMQ's `telemetry` option for queues and workers while tracing: producer and consumer spans, with the trace
 * context carried in the job's options (never its data). `undefined` when off, so BullMQ does nothing extra.
 * @example new Worker('email', processor, { connection, telemetry: queueTelemetry() });
 */
export function queueTelemetry(): BullMQOtel | undefined {
  return started?.queueTelemetry;
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
