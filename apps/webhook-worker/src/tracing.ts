// Imported first by the process's entry: the instrumentations patch pg, ioredis and http as they are first required.
// The module alone (not the runtime package's index), so nothing instrumented loads before it.
import { startTracing } from '@tidings/runtime/tracing';

startTracing('tidings-webhook-worker');
