// Imported first by the process's entry: the instrumentations patch pg, ioredis and http as they are first required.
// The module alone (not the runtime package's index), so nothing instrumented loads before it.
import { startTracing } from '@tidings/runtime/tracing';

// Statements are spans of the API's requests only when asked for: following each request across its awaits costs
// Node 20 more than the request's spans do (README, Tracing).
startTracing('tidings-api', process.env, { followAwaits: process.env.OTEL_API_STATEMENT_SPANS === 'true' });
