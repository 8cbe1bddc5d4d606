import { Hono } from 'hono';
import { serveHttp } from './http-server.ts';

/** One span as received, its attributes flattened to plain values. */
export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
};

export type OtlpReceiver = {
  /** What an app gets as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as received, to look for what must not be there. */
  bodies: string[];
  close(): Promise<void>;
};

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] };
type ExportRequest = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

const plain = (value: AnyValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? '';
const flatten = (attributes: KeyValue[] = []) => Object.fromEntries(attributes.map((a) => [a.key, plain(a.value)]));

/**
 * An OTLP/HTTP collector on 127.0.0.1 that keeps the spans POSTed to `/v1/traces` (the JSON protocol, as
 * @opentelemetry/exporter-trace-otlp-http sends it) and answers anything else with 200, keeping nothing.
 * @example const otlp = await startOtlpReceiver(); spawnService(entry, config, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const app = new Hono()
    .post('/v1/traces', async (c) => {
      const body = await c.req.text();
      bodies.push(body);
      for (const resourceSpans of (JSON.parse(body) as ExportRequest).resourceSpans ?? []) {
        const service = String(flatten(resourceSpans.resource?.attributes)['service.name'] ?? '');
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const s of scope.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: flatten(s.attributes),
              links: s.links ?? [],
            });
          }
        }
      }
      return c.json({});
    })
    .all('*', (c) => c.json({}));
  const server = await serveHttp(app.fetch);
  return { url: server.url, spans, bodies, close: () => server.close() };
}
