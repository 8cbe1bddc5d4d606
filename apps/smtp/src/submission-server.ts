import { MESSAGE_LIMITS } from '@tidings/contracts';
import { createAuthenticator, createAuthFailureLimiter, type Deps, type Principal, takeKeyRateLimit } from '@tidings/core';
import { type Stoppable, within } from '@tidings/runtime';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { type Deadlines, watchDeadlines } from './deadlines.ts';
import { createMemoryRelease } from './memory-release.ts';
import { OpenCounts, Turns } from './open-counts.ts';
import { receiveMail } from './receive-mail.ts';
import { replyToSendError, SmtpReply, storesUnavailable } from './smtp-reply.ts';
import { fixedServerOptions, listenOn } from './server-options.ts';
import { submitMessage } from './submit-message.ts';
import type { TlsPair } from './tls-pair.ts';

/** How long a look-up at Postgres or Redis may take before the client is told to come back (ioredis would queue it until Redis returns). */
const STORE_WAIT_MS = 5_000;
/** A mail over this size (attachments, mostly) is stored in its key's turn; a smaller one beside the key's others. */
const STORED_IN_TURN_BYTES = 256 * 1024;

export type SubmissionServer = Stoppable & { port: number; tlsPort: number };

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never;
/** What this server keeps of one open connection. */
type SessionState = {
  session: SMTPServerSession;
  connection: Connection;
  deadlines: Deadlines;
  /** The password it authenticated with, kept to check the key again at every MAIL FROM and at the end of DATA. */
  presentedKey?: string;
  /** The key whose mail slot this session holds, from MAIL FROM to the answer of DATA. */
  mailKeyId?: string;
  isReceiving: boolean;
};

const principalOf = (session: SMTPServerSession) => session.user as Principal;
const shuttingDown = () => new SmtpReply(421, '4.3.2', 'Server shutting down: try again in a moment');
const keyRefused = () => new SmtpReply(535, '5.7.8', 'The API key is no longer enabled (disabled, deleted or rotated out): nothing was queued');
const orgSuspended = () => new SmtpReply(535, '5.7.8', 'This organization is suspended: nothing was queued');

/**
 * A key's mails parsed at once. Receiving a mail waits on its client as much as on the CPU, so one at a time held a
 * key's ten pooled connections to 0.33 to 0.42 of HTTP's rate (`npm run bench:smtp`, built), four at once to 0.48 to
 * 0.56, without a bound 0.53 to 0.64; four keep a flooding key to four shares (tests/fairness/smtp-big-mail.test.ts).
 */
const PARSES_PER_KEY = 4;

/**
 * SMTP submission on two ports: `smtpSubmission.port` (plain, STARTTLS offered) and `smtpSubmission.tlsPort`
 * (implicit TLS). AUTH PLAIN or LOGIN with an API key as the password (any user name), counted against
 * AUTH_FAILURE_LIMIT per address as the API's. Each MAIL FROM checks the key and its organization again, takes a mail
 * slot of the key and of the address, and takes the API's rate limit (`takeKeyRateLimit`), all answered there, before
 * any content is read; a key change announced through `deps.keyChanges` ends the idle sessions of a key that is no
 * longer valid. The content is parsed as it arrives, within SEND_BODY_LIMIT_BYTES and SMTP_MAX_MIME_PARTS, and
 * becomes one message through message.send's function. Connections are capped in all and per address, and each
 * command and DATA content has a total deadline. `close()` takes no new mail, ends idle connections with 421 and
 * answers the mails being received before it resolves.
 * @example const server = await startSubmissionServer(deps, await loadTlsPair(deps.config.smtpSubmission, deps.config.env));
 */
export async function startSubmissionServer(deps: Deps, tls: TlsPair): Promise<SubmissionServer> {
  const { config, logger } = deps;
  const settings = config.smtpSubmission;
  const authenticate = createAuthenticator(deps);
  const failures = createAuthFailureLimiter(deps);
  const maxBytes = config.sendBodyLimitBytes;
  const sessions = new Map<string, SessionState>();
  const connectionsPerAddress = new OpenCounts();
  const mailsPerKey = new OpenCounts();
  const mailsPerAddress = new OpenCounts();
  const receivingBytesPerKey = new OpenCounts();
  const memory = createMemoryRelease();
  // At most PARSES_PER_KEY of a key's mails are parsed at once (the others wait, their clients held by TCP, within the
  // DATA deadline) and its big mails stored one at a time: a flood of big mails from one key takes a few shares of the
  // CPU, memory and pools, not all. A small mail is one row of the message writes' group commit, stored beside the
  // key's others (a key has at most SMTP_MAX_MAILS_PER_KEY mails at once): in turns, one key's ten connections made a
  // commit each.
  const parsing = new Turns(PARSES_PER_KEY);
  const storing = new Turns();
  let isStopping = false;
  const servers: SMTPServer[] = [];

  const connectionOf = (sessionId: string) => servers.flatMap((server) => [...server.connections]).find((c) => c.id === sessionId);
  const stateOf = (session: SMTPServerSession) => {
    const state = sessions.get(session.id);
    if (!state) throw storesUnavailable(); // onConnect made it: only a connection closing meanwhile has none
    return state;
  };

  /** The session's key and organization as they are now (the key cache drops a changed key at once). */
  const checkKeyAgain = async (state: SessionState): Promise<Principal> => {
    const found = await within(() => authenticate(state.presentedKey ?? ''), STORE_WAIT_MS);
    if (!found.ok) throw storesUnavailable();
    if (!found.value) throw keyRefused();
    if (found.value.isOrgSuspended) throw orgSuspended();
    state.session.user = found.value;
    return found.value;
  };

  const takeMailSlot = (state: SessionState, keyId: string) => {
    if (state.mailKeyId === keyId) return; // a MAIL FROM after RSET keeps its slot
    releaseMailSlot(state);
    const address = state.session.remoteAddress;
    if (!mailsPerKey.take(keyId, settings.maxMailsPerKey)) {
      throw new SmtpReply(451, '4.7.0', `Too many mails at once with this API key: at most ${settings.maxMailsPerKey} are received together; retry when one is answered`);
    }
    if (!mailsPerAddress.take(address, settings.maxMailsPerAddress)) {
      mailsPerKey.release(keyId);
      throw new SmtpReply(451, '4.7.0', `Too many mails at once from this address: at most ${settings.maxMailsPerAddress} are received together; retry when one is answered`);
    }
    state.mailKeyId = keyId;
  };
  const releaseMailSlot = (state: SessionState) => {
    if (!state.mailKeyId) return;
    mailsPerKey.release(state.mailKeyId);
    mailsPerAddress.release(state.session.remoteAddress);
    state.mailKeyId = undefined;
  };

  // A disabled, deleted or rotated key, or a suspended organization (its keys are announced): the idle sessions of
  // that key end now; a mail being received is refused at its end by the same check. One look-up per presented key.
  deps.keyChanges.subscribe((keyId) => {
    const checks = new Map<string, Promise<unknown>>();
    for (const state of sessions.values()) {
      if (state.isReceiving || (state.session.user as Principal | undefined)?.keyId !== keyId) continue;
      const presented = state.presentedKey ?? '';
      if (!checks.has(presented)) checks.set(presented, checkKeyAgain(state));
      checks.get(presented)?.then(
        () => {},
        (error: unknown) => {
          if (error instanceof SmtpReply && error.responseCode === 535) state.connection.send(421, `4.7.0 ${error.message.slice(6)}; closing the connection`);
        },
      );
    }
  });

  const endConnection = (sessionId: string) => connectionOf(sessionId)?.send(421, '4.3.2 Server shutting down: try again in a moment');

  const options: SMTPServerOptions = {
    ...fixedServerOptions(config, tls),

    onConnect(session, callback) {
      const connection = connectionOf(session.id);
      if (!connection || isStopping) return callback(shuttingDown());
      if (sessions.size >= settings.maxConnections) return callback(new SmtpReply(421, '4.7.0', 'Too many connections to this server: try again in a moment'));
      if (!connectionsPerAddress.take(session.remoteAddress, settings.maxConnectionsPerAddress)) {
        return callback(new SmtpReply(421, '4.7.0', `Too many connections from this address: at most ${settings.maxConnectionsPerAddress} at once`));
      }
      sessions.set(session.id, { session, connection, deadlines: watchDeadlines(connection, settings), isReceiving: false });
      callback();
    },

    onClose(session) {
      const state = sessions.get(session.id);
      if (!state) return;
      sessions.delete(session.id);
      state.deadlines.stop();
      releaseMailSlot(state);
      connectionsPerAddress.release(session.remoteAddress);
    },

    onAuth(auth, session, callback) {
      void (async () => {
        const state = stateOf(session);
        state.deadlines.pause();
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
        state.presentedKey = auth.password ?? undefined;
        return principal;
      })().then(
        (principal) => callback(null, { user: principal }),
        (error: Error) => callback(error),
      );
    },

    onMailFrom(_address, session, callback) {
      void (async () => {
        const state = stateOf(session);
        state.deadlines.pause();
        if (isStopping) throw shuttingDown();
        try {
          const principal = await checkKeyAgain(state);
          takeMailSlot(state, principal.keyId);
          const verdict = await within(() => takeKeyRateLimit(deps, principal), STORE_WAIT_MS);
          if (!verdict.ok) throw storesUnavailable();
          if (verdict.value.refusal) throw new SmtpReply(451, '4.7.0', verdict.value.refusal.message);
        } catch (error) {
          releaseMailSlot(state);
          throw error;
        }
      })().then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },

    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= MESSAGE_LIMITS.recipients) {
        return callback(new SmtpReply(452, '4.5.3', `Too many recipients: at most ${MESSAGE_LIMITS.recipients} per message`));
      }
      callback();
    },

    onData(stream, session, callback) {
      const state = sessions.get(session.id);
      if (!state) return callback(storesUnavailable());
      state.isReceiving = true;
      stream.on('error', () => {}); // so that a connection lost while the mail waits for its turn destroys it with an error
      state.deadlines.startData(() => stream.destroy(new SmtpReply(421, '4.4.2', 'DATA deadline passed', { isMidStream: true })));
      const keyId = principalOf(session).keyId;
      let reservedBytes = 0;
      const takeBudget = (bytes: number) => {
        if (!receivingBytesPerKey.take(keyId, settings.maxReceivingBytesPerKey, bytes)) return false;
        reservedBytes += bytes;
        return true;
      };
      void (async () => {
        const received = parsing.run(keyId, () => receiveMail(stream, { maxBytes, maxMimeParts: settings.maxMimeParts, takeBudget }));
        const { mail, bytes } = await received.finally(() => {
          state.deadlines.endData();
          memory.after(reservedBytes);
        });
        const store = async () =>
          submitMessage(
            deps,
            await checkKeyAgain(state),
            mail,
            session.envelope.rcptTo.map((r) => r.address),
          );
        const id = await (bytes > STORED_IN_TURN_BYTES ? storing.run(keyId, store) : store());
        const principal = principalOf(session);
        logger.info({ orgId: principal.orgId, messageId: id, bytes }, 'smtp message queued');
        return id;
      })()
        .then(
          (id) => callback(null, `2.0.0 queued as ${id}`),
          (error: unknown) => {
            const reply = replyToSendError(error);
            if (reply.responseCode === 451 && !(error instanceof SmtpReply)) logger.warn({ err: error }, 'smtp submission failed: nothing was queued');
            // refused while the client still sends (too big, too slow): answered now, and the rest is not read
            if (reply.isMidStream) state.connection.send(reply.responseCode, reply.message);
            if (reply.isMidStream && reply.responseCode !== 421) state.connection.close();
            // refused before the end otherwise (too many parts): the rest is read and dropped, then answered
            stream.unpipe();
            stream.resume();
            callback(reply);
          },
        )
        .finally(() => {
          state.isReceiving = false;
          receivingBytesPerKey.release(keyId, reservedBytes);
          memory.after(reservedBytes);
          releaseMailSlot(state);
          // answered: a connection of a stopping server ends here rather than wait for its next command
          if (isStopping) setImmediate(() => endConnection(session.id));
        });
    },
  };

  const listen = async (server: SMTPServer, port: number) => {
    const listening = await listenOn(server, port, logger);
    servers.push(server);
    return listening;
  };
  const port = await listen(new SMTPServer({ ...options, secure: false }), settings.port);
  const tlsPort = await listen(new SMTPServer({ ...options, secure: true }), settings.tlsPort);

  return {
    port,
    tlsPort,
    async close() {
      isStopping = true;
      const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      for (const state of sessions.values()) if (!state.isReceiving) endConnection(state.session.id);
      await Promise.all(closed);
    },
  };
}
