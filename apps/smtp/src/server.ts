// The SMTP submission process: `node apps/smtp/dist/server.js` (built) or `tsx apps/smtp/src/server.ts`.
import './tracing.ts'; // first: see tracing.ts
import { openDeps } from '@tidings/bootstrap';
import { runProcess } from '@tidings/runtime';
import { startSubmissionServer } from './submission-server.ts';
import { loadTlsPair } from './tls-pair.ts';

// On SIGTERM no new mail is taken, idle connections get 421, and a mail being received is answered (250 once queued,
// or a 4xx the client retries) before the pools close: never a 250 for a mail that was not stored.
runProcess('smtp', {
  open: (config) => openDeps(config, 'smtp'),
  opsPort: (config) => config.smtpSubmission.metricsPort,
  stopWithinMs: () => 30_000,
  async start(deps) {
    const tls = await loadTlsPair(deps.config.smtpSubmission, deps.config.env);
    const server = await startSubmissionServer(deps, tls);
    deps.logger.info(
      { port: server.port, tlsPort: server.tlsPort, isSelfSigned: tls.isSelfSigned },
      `smtp submission on ports ${server.port} (STARTTLS) and ${server.tlsPort} (TLS)`,
    );
    // not its port: the process's start line would call it an http address
    return { close: () => server.close() };
  },
});
