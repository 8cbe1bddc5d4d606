import type { SMTPServer } from 'smtp-server';

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never;

/** What the deadlines of one connection are told: a handler of ours started, a DATA content started or ended. */
export type Deadlines = { pause(): void; startData(onExpired: () => void): void; endData(): void; stop(): void };

/**
 * Total deadlines of one connection, where smtp-server's idle timeout counts only silence (a client sending a byte
 * every 20 s would keep it for ever): each command must be complete within `commandTimeoutMs` of the previous answer
 * (the greeting for the first), and a DATA content within `dataTimeoutMs` of its 354. Past either, `421 4.4.2` and
 * the connection ends. The clock is armed by every answer the connection sends (its `send`, wrapped), and paused
 * while a handler of ours works, since then the client is waiting for us.
 * @example const deadlines = watchDeadlines(connection, config.smtpSubmission); ...; deadlines.pause();
 */
export function watchDeadlines(connection: Connection, settings: { commandTimeoutMs: number; dataTimeoutMs: number }): Deadlines {
  let timer: NodeJS.Timeout | undefined;
  let isInData = false;
  const expire = (text: string) => () => connection.send(421, `4.4.2 ${text}: closing the connection`);
  const arm = (ms: number, onExpired: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(onExpired, ms);
    timer.unref();
  };
  const send = connection.send.bind(connection);
  connection.send = (code, data, context) => {
    // 354 opens the DATA content, whose deadline startData armed; every other answer waits for the next command
    if (code !== 354 && code !== 421 && !isInData) arm(settings.commandTimeoutMs, expire(`No complete command within ${settings.commandTimeoutMs} ms`));
    send(code, data, context);
  };
  return {
    pause: () => clearTimeout(timer),
    startData(onExpired) {
      isInData = true;
      arm(settings.dataTimeoutMs, () => {
        expire(`The mail was not received in full within ${settings.dataTimeoutMs} ms`)();
        onExpired();
      });
    },
    endData() {
      isInData = false;
      clearTimeout(timer);
    },
    stop: () => clearTimeout(timer),
  };
}
