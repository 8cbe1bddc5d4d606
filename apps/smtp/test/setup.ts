import { createTestDeps, makeOrganization, type TestDeps } from '@tidings/testing';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { loadTlsPair, startSubmissionServer, type SubmissionServer } from '../src/index.ts';

export type Transport = Transporter<SMTPTransport.SentMessageInfo>;

/**
 * The SMTP submission server of this test file on free ports, over real Postgres and Redis, with a self-signed
 * certificate made at start (as `npm start` does), and real nodemailer clients for it.
 * @example const t = await setupSmtp(); const client = t.client(key); await client.sendMail({...}); afterAll(t.close);
 */
export async function setupSmtp(env: Record<string, string> = {}, deps: TestDeps = createTestDeps({ SMTP_SUBMISSION_PORT: '0', SMTPS_PORT: '0', ...env })) {
  const server: SubmissionServer = await startSubmissionServer(deps, await loadTlsPair(deps.config.smtpSubmission, deps.config.env));
  const transports: Transport[] = [];
  return {
    deps,
    server,
    /**
     * A nodemailer transport authenticating with `key`: STARTTLS on the submission port, or implicit TLS on the SMTPS
     * port with `secure`; `pool` for pooled connections. The certificate is self-signed, so it is not verified.
     */
    client(key: string, options: { secure?: boolean; pool?: boolean; method?: 'PLAIN' | 'LOGIN'; maxConnections?: number; maxMessages?: number } = {}): Transport {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: options.secure ? server.tlsPort : server.port,
        secure: options.secure ?? false,
        requireTLS: !options.secure,
        auth: { user: 'any-user', pass: key, method: options.method ?? 'PLAIN' },
        tls: { rejectUnauthorized: false },
        ...(options.pool ? { pool: true, maxConnections: options.maxConnections ?? 1, maxMessages: options.maxMessages ?? Infinity } : {}),
      } as SMTPTransport.Options);
      transports.push(transport);
      return transport;
    },
    org: (options: { mode?: 'live' | 'test' } = {}) => makeOrganization(deps, options),
    async close() {
      for (const transport of transports) transport.close();
      await server.close();
      await deps.close();
    },
  };
}

/** The SMTP reply code of a refused send (nodemailer puts it on the error). */
export async function refusal(sending: Promise<unknown>): Promise<{ code: number; response: string }> {
  const error = (await sending.then(
    () => {
      throw new Error('the send was accepted, a refusal was expected');
    },
    (e: unknown) => e,
  )) as { responseCode?: number; response?: string };
  return { code: error.responseCode ?? 0, response: error.response ?? '' };
}
