import type { AddressInfo } from 'node:net';
import { MESSAGE_LIMITS } from '@tidings/contracts';
import { createAuthenticator, createAuthFailureLimiter, takeRateLimit, type Deps, type Principal } from '@tidings/core';
import { within, type Stoppable } from '@tidings/runtime';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { replyToSendError, SmtpReply, storesUnavailable } from './smtp-reply.ts';
import { submitMessage } from './submit-message.ts';
import type { TlsPair } from './tls-pair.ts';

/** How long a look-up at Postgres or Redis may take before the client is told to come back (ioredis would queue it until Redis returns). */
const STORE_WAIT_MS = 5_000;

export type SubmissionServer = Stoppable & { port: number; tlsPort: number };

const principalOf = (session: SMTPServerSession) => session.user as Principal;
const shuttingDown = () => new SmtpReply(421, '4.3.2', 'Server shutting down: try again in a moment');

/**
 * SMTP submission on two ports: `smtpSubmission.port` (plain, STARTTLS offered) and `smtpSubmission.tlsPort`
 * (implicit TLS). AUTH PLAIN or LOGIN with an API key as the password (any user name), counted against
 * AUTH_FAILURE_LIMIT per address as the API's; each MAIL FROM takes one from the key's rate limit, shared with the API (a refusal answers the DATA);
 * each mail accepted at DATA becomes one message through message.send's function. `close()` takes no new mail, ends
 * idle connections with 421 and answers the mails being received before it resolves.
 * @example const server = await startSubmissionServer(deps, await loadTlsPair(deps.config.smtpSubmission, deps.config.env));
 */
export async function startSubmissionServer(deps: Deps, tls: TlsPair): Promise<SubmissionServer> {
  const { config, logger } = deps;
  const authenticate = createAuthenticator(deps);
  const failures = createAuthFailureLimiter(deps);
  const limitBytes = config.sendBodyLimitBytes;
  /** Sessions whose mail is being received or queued: at shutdown they are answered before their connection ends. */
  const receiving = new Set<string>();
  let isStopping = false;
  const servers: SMTPServer[] = [];
  /** The rate-limit answer of each session's current mail: a refusal, or null when it may go. */
  const rateLimitVerdicts = new WeakMap<SMTPServerSession, Promise<Error | null>>();
  const rateLimitVerdict = (keyId: string): Promise<Error | null> =>
    within(() => takeRateLimit(deps, `${config.redisPrefix}:rate:${keyId}`, { limit: config.rateLimitPerMinute, windowMs: config.rateLimitWindowMs }), STORE_WAIT_MS).then(
      (taken) => {
        if (!taken.ok) return storesUnavailable();
        if (taken.value.isAllowed) return null;
        return new SmtpReply(451, '4.7.0', `Rate limit of ${taken.value.limit} messages per minute exceeded; retry in ${taken.value.resetSeconds} s`);
      },
      (error: Error) => error,
    );

  const endConnection = (sessionId: string) => {
    for (const server of servers) {
      for (const connection of server.connections) {
        if (connection.id !== sessionId) continue;
        connection.send(421, '4.3.2 Server shutting down: try again in a moment');
        connection.close();
      }
    }
  };

  const options: SMTPServerOptions = {
    name: config.smtpSubmission.publicHost,
    banner: 'Tidings SMTP submission: AUTH with an API key as the password',
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: config.smtpSubmission.allowAuthWithoutTls,
    // our replies carry their own enhanced codes (4.5.3, 5.7.1, ...), which the server's table would replace
    hideENHANCEDSTATUSCODES: true,
    // delivery status notifications are the webhooks' job: DSN is not offered
    hideDSN: true,
    // counted by the server, refused in onData with 552 5.3.4 (its own refusal carries no enhanced code)
    size: limitBytes,
    hideSize: true,
    closeTimeout: 20_000,
    // behind a TCP proxy (docker-compose's smtp-proxy) the client's address comes in a PROXY protocol header
    useProxy: config.trustProxy,
    logger: false,

    onAuth(auth, session, callback) {
      void (async () => {
        const address = session.remoteAddress;
        const blockedSeconds = failures.blockedSeconds(address);
        if (blockedSeconds > 0) throw new SmtpReply(454, '4.7.0', `Too many failed authentications from this address; retry in ${blockedSeconds} s`);
        const found = await within(() => authenticate(auth.password ?? ''), STORE_WAIT_MS);
        if (!found.ok) throw new SmtpReply(454, '4.7.0', 'Could not check the API key just now; try again in a moment');
        const principal = found.value;
        if (!principal) {
          const counted = await within(() => failures.record(address), STORE_WAIT_MS);
          if (counted.ok && counted.value > 0) throw new SmtpReply(454, '4.7.0', `Too many failed authentications from this address; retry in ${counted.value} s`);
          throw new SmtpReply(535, '5.7.8', 'Invalid API key: the password must be an sk_live_ or sk_test_ key that is enabled');
        }
        if (principal.isOrgSuspended) throw new SmtpReply(535, '5.7.8', 'This organization is suspended');
        return principal;
      })().then(
        (principal) => callback(null, { user: principal }),
        (error: Error) => callback(error),
      );
    },

    onMailFrom(_address, session, callback) {
      if (isStopping) return callback(shuttingDown());
      // taken now, answered at the end of DATA: the client's pipelined RCPT and DATA go on meanwhile
      rateLimitVerdicts.set(session, rateLimitVerdict(principalOf(session).keyId));
      callback();
    },

    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= MESSAGE_LIMITS.recipients) {
        return callback(new SmtpReply(452, '4.5.3', `Too many recipients: at most ${MESSAGE_LIMITS.recipients} per message`));
      }
      callback();
    },

    onData(stream, session, callback) {
      receiving.add(session.id);
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        // past the limit the rest is read and dropped: the answer is 552 whatever follows
        if (bytes <= limitBytes) chunks.push(chunk);
      });
      stream.once('end', () => {
        void (async () => {
          const refusal = await rateLimitVerdicts.get(session);
          rateLimitVerdicts.delete(session);
          if (refusal) throw refusal;
          if (bytes > limitBytes) throw new SmtpReply(552, '5.3.4', `Message too big: at most ${limitBytes} bytes (SEND_BODY_LIMIT_BYTES)`);
          // the text is taken as it is: mailparser's html rendering of it (textAsHtml) is not used
          const mail = await simpleParser(Buffer.concat(chunks), { keepCidLinks: true, skipTextToHtml: true, skipTextLinks: true });
          const principal = principalOf(session);
          const id = await submitMessage(
            deps,
            principal,
            mail,
            session.envelope.rcptTo.map((r) => r.address),
          );
          logger.info({ orgId: principal.orgId, messageId: id, bytes }, 'smtp message queued');
          return id;
        })()
          .then(
            (id) => callback(null, `2.0.0 queued as ${id}`),
            (error: unknown) => {
              const reply = replyToSendError(error);
              if (reply.responseCode === 451 && !(error instanceof SmtpReply)) logger.warn({ err: error }, 'smtp submission failed: nothing was queued');
              callback(reply);
            },
          )
          .finally(() => {
            receiving.delete(session.id);
            // answered: a connection of a stopping server ends here rather than wait for its next command
            if (isStopping) setImmediate(() => endConnection(session.id));
          });
      });
    },
  };

  const listen = async (server: SMTPServer, port: number) => {
    // a client's failure (a broken TLS handshake, a reset) is its own: not worth more than a debug line
    server.on('error', (error) => logger.debug({ err: error }, 'smtp connection error'));
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    servers.push(server);
    return (server.server.address() as AddressInfo).port;
  };
  const port = await listen(new SMTPServer({ ...options, secure: false }), config.smtpSubmission.port);
  const tlsPort = await listen(new SMTPServer({ ...options, secure: true }), config.smtpSubmission.tlsPort);

  return {
    port,
    tlsPort,
    async close() {
      isStopping = true;
      const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      for (const server of servers) {
        for (const connection of server.connections) if (!receiving.has(connection.id)) endConnection(connection.id);
      }
      await Promise.all(closed);
    },
  };
}
