// The click redirect (`GET /c/{token}`) under load, against message.list pages on the same API and connections:
// the issue's goal is at least the rate of message.list pages. Each request is another (message, link): the first
// click of each, so every request does its insert (the worst case; a repeat within the hour inserts nothing).
import { trackingToken } from '@tidings/core';
import { load, progress, ratio, type Api, type Bench, type LoadResult } from '../harness.ts';
import { LIST_CONNECTIONS } from './list.ts';

const LINKS_PER_MESSAGE = 4;

/** `GET /c/{token}` over the links of `messageIds` in turn, LIST_CONNECTIONS connections; `listPages` for the ratio. */
export async function measureClickRedirect(bench: Bench, api: Api, messageIds: string[], listPages: LoadResult) {
  const secret = bench.deps.config.broadcasts.unsubscribeSecret;
  const paths = messageIds.flatMap((messageId) =>
    Array.from(
      { length: LINKS_PER_MESSAGE },
      (_, link) => `/c/${trackingToken(secret, { kind: 'click', messageId, url: `https://example.com/landing/${link}?utm_source=bench` })}`,
    ),
  );
  const first = await fetch(`${api.url}${paths[0]}`, { redirect: 'manual' });
  if (first.status !== 302 || !first.headers.get('location')?.startsWith('https://example.com/landing/0')) throw new Error(`click redirect: ${first.status}`);
  progress(`api: GET /c/{token} over ${paths.length} links of ${messageIds.length} messages, ${LIST_CONNECTIONS} connections, ${bench.seconds} s`);
  const clicks = await load({ url: api.url, method: 'GET', headers: {}, connections: LIST_CONNECTIONS, seconds: bench.seconds, paths, redirectsAreOk: true });
  const [{ recorded }] = await bench.deps.db.$queryRaw<{ recorded: number }[]>`
    SELECT count(*)::int AS "recorded" FROM "MessageStatusEvent" WHERE "messageId" = ANY (${messageIds}) AND "activity" = 'clicked'`;
  return {
    connections: LIST_CONNECTIONS,
    throughput: clicks.requestsPerSecond,
    p50: clicks.p50,
    p99: clicks.p99,
    errors: clicks.errors,
    links: paths.length,
    recorded,
    listThroughput: listPages.requestsPerSecond,
    // goal: at least 1
    ratio: ratio(clicks.requestsPerSecond, listPages.requestsPerSecond),
  };
}
