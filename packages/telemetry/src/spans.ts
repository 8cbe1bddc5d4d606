// Spans and a request's trace through @opentelemetry/api alone (the package meant for libraries): core records its
// spans here without the SDK, which @tidings/runtime starts (startTracing) and describes here (setTracingState). Off,
// every helper is a plain call.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

export { SpanKind };
export type { Span };

/** The tracer every span of ours is made by. */
export const TRACER = 'tidings';

/** What the started SDK tells the helpers: its settings, and the two things only it can do. */
export type TracingState = {
  /** OTEL_RECORD_RECIPIENTS=true: a span may name a recipient. */
  recordRecipients: boolean;
  /** Whether the active span follows awaits (AsyncLocalStorage), or a request's trace is handed on explicitly. */
  followAwaits: boolean;
  /** `parent` with tracing suppressed (no spans for the Postgres and Redis calls inside). */
  suppressTracing(parent: Context): Context;
  /** BullMQ's job metadata that makes a job continue `requestTrace`. */
  jobMetadata(requestTrace: Context): string;
};

let state: TracingState | null = null;

/** Called by the runtime when the SDK starts (the state) and stops (null). */
export function setTracingState(next: TracingState | null): void {
  state = next;
}

/** Whether this process traces. */
export function tracingOn(): boolean {
  return state !== null;
}

/** Whether a span may name a recipient (`OTEL_RECORD_RECIPIENTS=true`); by default it may not. */
export function recordRecipients(): boolean {
  return state?.recordRecipients ?? false;
}

/**
 * Runs `work` with no span for it nor for the Postgres or Redis calls inside it: for bookkeeping every request does
 * (a rate-limit check), whose spans would cost SDK work per request and tell on-call nothing; its time stays inside
 * the request's server span. Off, just `work()`.
 * @example const [allowed] = await untraced(() => client.slidingWindow(key, windowMs, limit, member));
 */
export function untraced<T>(work: () => T): T {
  if (!state) return work();
  return context.with(state.suppressTracing(context.active()), work);
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
  return state?.followAwaits ? fieldsOf(trace.getActiveSpan()) : {};
}

/**
 * `{ traceId, spanId }` of a request's span for the request's own logger, where the active span does not follow
 * awaits (elsewhere the logger's mixin adds them to every line); empty otherwise.
 * @example const logger = deps.logger.child({ requestId, ...requestTraceFields(trace) });
 */
export function requestTraceFields(requestTrace: RequestTrace | undefined): TraceFields {
  return state && !state.followAwaits && requestTrace ? fieldsOf(trace.getSpan(requestTrace)) : {};
}

/**
 * Runs `work` with `requestTrace` active (the producer spans of the jobs it adds are the request's children); without
 * one, or off, just `work()`.
 */
export function withTrace<T>(requestTrace: RequestTrace | undefined, work: () => T): T {
  return state && requestTrace ? context.with(requestTrace, work) : work();
}

/**
 * BullMQ's `telemetry` job option that makes a job continue `requestTrace` (in its options in Redis, never its data):
 * for jobs added together for several requests (one addBulk), each continuing its own. Undefined when off.
 */
export function jobTelemetry(requestTrace: RequestTrace | undefined): { metadata: string } | undefined {
  return state && requestTrace ? { metadata: state.jobMetadata(requestTrace) } : undefined;
}

/** The W3C `traceparent` (and `tracestate`) of the active span, to send along; empty when off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (state) propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Runs `work` in a span of its own (a provider call, a webhook delivery), ended when `work` settles; a throw marks
 * it as an error by the error's name only (a message may quote a recipient or a statement's values). Off, `work`
 * runs with `undefined` and nothing else happens.
 * @example await inSpan('provider.send', SpanKind.CLIENT, { 'tidings.provider': 'resend' }, (span) => call());
 */
export async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!state) return work(undefined);
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
