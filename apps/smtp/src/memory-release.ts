import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Content past which a mail is worth a collection: a mail of a few MiB leaves some tens of MiB of garbage behind. */
const BIG_MAIL_BYTES = 4 * 1024 * 1024;
/** At most one collection this often, however many big mails end. */
const MIN_INTERVAL_MS = 1000;

/**
 * Gives back the memory of big mails. V8 collects when JavaScript allocates, and parsing a mail leaves its bytes in
 * hundreds of thousands of small Buffers: a process that goes quiet after a burst of big mails would keep hundreds of
 * MiB for ever (951 MiB 25 minutes later, in the attack run). So a full collection is asked for after each stage
 * of a big mail (received, answered), at most every MIN_INTERVAL_MS; small mails never trigger one. `gc` is
 * V8's own, exposed for this module alone (the flag makes a new context carry it).
 * @example const release = createMemoryRelease(); ...; release.after(bytes);
 */
export function createMemoryRelease() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let lastMs = 0;
  let pending: NodeJS.Timeout | undefined;
  const collect = () => {
    pending = undefined;
    lastMs = Date.now();
    gc();
  };
  return {
    /** Called when a stage of a mail of `bytes` ends; collects now or soon when it was a big one. */
    after(bytes: number) {
      if (bytes < BIG_MAIL_BYTES || pending) return;
      const waitMs = lastMs + MIN_INTERVAL_MS - Date.now();
      if (waitMs <= 0) return collect();
      pending = setTimeout(collect, waitMs);
      pending.unref();
    },
  };
}
