// OpenTelemetry tracing, off unless an OTLP endpoint is configured. Imports nothing but the (no-op by default)
// @opentelemetry/api, so an app can load it before anything it instruments (pg, ioredis, http).
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { BullMQOtel } from 'bullmq-otel';

export { SpanKind };

type Started = { shutdown(): Promise<void>; recordRecipients: boolean; queueTelemetry: BullMQOtel };
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
 * Starts the SDK when `tracingConfigured()`: spans of incoming HTTP requests, Postgres and Redis, exported as OTLP/HTTP
 * JSON to `OTEL_EXPORTER_OTLP_ENDPOINT` (the standard `OTEL_*` variables apply: sampler, batch timings, resource);
 * `OTEL_SERVICE_NAME` defaults to `serviceName`. Must run before pg, ioredis and http are first required (the
 * instrumentations patch them as they load): each app's entry imports its `tracing.ts` first. Off, it loads no SDK.
 * @example startTracing('tidings-api');
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (started || !tracingConfigured(env)) return false;
  // required here, not imported: with tracing off no SDK code is loaded
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || serviceName,
    traceExporter: new OTLPTraceExporter(),
    // Prometheus and the JSON log stay the metrics and the logs: the SDK exports traces only
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => untracedPaths.has((request.url ?? '').split('?')[0]!),
        // Outgoing calls (providers' SDKs, webhook POSTs) get spans of ours with the attributes that matter and no
        // URL: a customer's webhook URL may carry a token. Nor does a provider receive our trace ids.
        disableOutgoingRequestInstrumentation: true,
      }),
      // statements with their parameters' placeholders only, never the values
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      // the command and key only, never the arguments (a job's data, a rate-limit key)
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  started = { shutdown: () => sdk.shutdown(), recordRecipients: env.OTEL_RECORD_RECIPIENTS === 'true', queueTelemetry: new BullMQOtel({ tracerName: TRACER }) };
  return true;
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

/** `{ traceId, spanId }` of the active span, for a log line; empty when no trace is active. */
export function traceFields(): { traceId?: string; spanId?: string } {
  if (!started) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** The W3C `traceparent` (and `tracestate`) of the active span, to send along; empty when off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (started) propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Names the active (HTTP server) span after the route pattern, as `GET /v1/messages/:id`, and puts the pattern in
 * place of the path and a placeholder in place of the query: a path or a query may hold an address (suppressions,
 * list filters) or a token (unsubscribe links).
 */
export function nameServerSpan(method: string, route: string, hasQuery: boolean): void {
  if (!started) return;
  const span = trace.getActiveSpan();
  span?.updateName(`${method} ${route}`);
  span?.setAttributes({ 'http.route': route, 'url.path': route, ...(hasQuery ? { 'url.query': '[redacted]' } : {}) });
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
