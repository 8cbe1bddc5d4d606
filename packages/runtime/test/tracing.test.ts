import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { inServerSpan, inSpan, queueTelemetry, SpanKind, startTracing, traceFields, traceHeaders, tracingConfigured, tracingOn, untraced } from '../src/tracing.ts';

describe('tracing while not configured', () => {
  it('needs an OTLP endpoint, and OTEL_SDK_DISABLED turns it off', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('does nothing: no spans, no headers, no log fields, no queue telemetry', async () => {
    expect(startTracing('test', {})).toBe(false);
    expect(tracingOn()).toBe(false);
    expect(queueTelemetry()).toBeUndefined();
    expect(await inSpan('work', SpanKind.CLIENT, {}, async (span) => ({ span, headers: traceHeaders(), fields: traceFields() }))).toEqual({
      span: undefined,
      headers: {},
      fields: {},
    });
    const handle = jest.fn(async () => ({ route: '/v1/messages', status: 200, hasQuery: false }));
    await inServerSpan('GET', '/v1/messages', () => undefined, handle);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(await untraced(async () => 'done')).toBe('done');
  });

  it('loads no OpenTelemetry SDK in a process started without an endpoint', () => {
    // a process of its own: jest's module registry is not node's
    const script = `const tracing = require(${JSON.stringify(path.resolve(__dirname, '../src/tracing.ts'))});
      tracing.startTracing('test');
      tracing.untraced(() => {});
      console.log(JSON.stringify(Object.keys(require.cache).filter((f) => /sdk-node|sdk-trace|exporter-trace|instrumentation|opentelemetry.core/.test(f))));`;
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const loaded = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { env, encoding: 'utf8' });
    expect(JSON.parse(loaded)).toEqual([]);
  });
});
