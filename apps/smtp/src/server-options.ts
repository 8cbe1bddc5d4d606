import type { AddressInfo } from 'node:net';
import type { Deps } from '@tidings/core';
import type { SMTPServer, SMTPServerOptions } from 'smtp-server';
import type { TlsPair } from './tls-pair.ts';

/**
 * The submission server's settings that no session changes: its name and banner, TLS, AUTH methods, what it hides of
 * the server's own extensions, and its guards; the session handlers are added by startSubmissionServer.
 * @example new SMTPServer({ ...fixedServerOptions(deps.config, tls), onConnect, secure: true });
 */
export function fixedServerOptions(config: Deps['config'], tls: TlsPair): SMTPServerOptions {
  const settings = config.smtpSubmission;
  return {
    name: settings.publicHost,
    banner: 'Tidings SMTP submission: AUTH with an API key as the password',
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: settings.allowAuthWithoutTls,
    // our replies carry their own enhanced codes (4.5.3, 5.7.1, ...), which the server's table would replace
    hideENHANCEDSTATUSCODES: true,
    // delivery status notifications are the webhooks' job: DSN is not offered
    hideDSN: true,
    // counted by receiveMail as the content arrives (a 552 5.3.4 there ends the connection)
    size: config.sendBodyLimitBytes,
    hideSize: true,
    closeTimeout: 20_000,
    // the server's own guard, per port, of sockets not yet handed to onConnect (TLS handshakes); one over ours, so that
    // onConnect's refusal, with its enhanced code, is the one a client sees
    maxClients: settings.maxConnections + 1,
    // a PTR look-up per connection is DNS work a flood of connections would multiply; nothing here uses the name
    disableReverseLookup: true,
    // behind a TCP proxy (docker-compose's smtp-proxy) the client's address comes in a PROXY protocol header
    useProxy: config.trustProxy,
    logger: false,
  };
}

/**
 * Starts `server` on `port` (0: any free one) and resolves with the port it listens on; a port already taken rejects.
 * @example const port = await listenOn(new SMTPServer(options), 587, deps.logger);
 */
export async function listenOn(server: SMTPServer, port: number, logger: Deps['logger']): Promise<number> {
  // a client's failure (a broken TLS handshake, a reset) is its own: not worth more than a debug line
  server.on('error', (error) => logger.debug({ err: error }, 'smtp connection error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return (server.server.address() as AddressInfo).port;
}
