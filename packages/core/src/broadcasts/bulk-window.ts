import { broadcastJobId } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import type { OutboxItem } from '../outbox.ts';
import { readChunkWindow, selectLostChunks } from './broadcast.store.ts';

/**
 * Fairness between organizations in the bulk lane. A broadcast's chunks are released as a chain: the start adds the
 * first `chunksInFlight` chunk jobs, and each chunk, once written, adds the one `chunksInFlight` further on. A chunk
 * writes its messages only while its organization has fewer than BROADCAST_ORG_WINDOW broadcast messages waiting
 * (queued or sending); otherwise it looks again a moment later. So one organization's 100,000 recipients are at most
 * a window (plus the chunks in flight) ahead of another's in the bulk queues, and only a handful of its chunk jobs
 * wait in the fan-out's queue at a time.
 */

/** How soon a chunk held back by its organization's window looks again (plus up to as much again, at random). */
export const WINDOW_RECHECK_MS = 250;

/** Chunks of one broadcast released at a time: as many as a fan-out worker writes at once. */
export function chunksInFlight(config: Deps['config']): number {
  return config.broadcasts.workerConcurrency;
}

/** The job of chunk `chunk` of a broadcast. */
export function chunkJob(broadcastId: string, chunk: number): OutboxItem {
  return { queue: 'broadcasts', jobId: broadcastJobId({ broadcastId, step: 'chunk', chunk }) };
}

/** The jobs the start releases: the first chunks of the chain. */
export function firstChunkJobs(config: Deps['config'], broadcastId: string, chunkCount: number): OutboxItem[] {
  return Array.from({ length: Math.min(chunkCount, chunksInFlight(config)) }, (_, chunk) => chunkJob(broadcastId, chunk));
}

/** The job chunk `chunk` releases once written (none past the last chunk). */
export function nextChunkJobs(config: Deps['config'], broadcastId: string, chunk: number, chunkCount: number): OutboxItem[] {
  const next = chunk + chunksInFlight(config);
  return next < chunkCount ? [chunkJob(broadcastId, next)] : [];
}

/**
 * Whether chunk `chunk` of the broadcast is written already, and whether its organization's window is full: at
 * least one of its broadcast messages waits and one more chunk would take it past BROADCAST_ORG_WINDOW (a chunk
 * larger than the window still goes when nothing waits). The count stops at the window: it reads at most that many
 * index entries, whatever the size of the broadcasts.
 */
export async function windowOf(deps: Pick<Deps, 'db' | 'config'>, orgId: string, broadcastId: string, chunk: number): Promise<{ written: boolean; full: boolean }> {
  const { orgWindow, chunkSize } = deps.config.broadcasts;
  const row = await readChunkWindow(deps.db, orgId, { broadcastId, chunk }, orgWindow);
  const waiting = row?.waiting ?? 0;
  return { written: row?.written ?? false, full: waiting > 0 && waiting + chunkSize > orgWindow };
}

/**
 * The released chunks not written yet (their jobs lost with a Redis that restarted empty): chunks of the chain's
 * start, and those whose predecessor `chunksInFlight` back is written. Chunks not released yet are not lost.
 */
export async function lostChunks(deps: Pick<Deps, 'db' | 'config'>, broadcastId: string, chunkCount: number): Promise<number[]> {
  const step = chunksInFlight(deps.config);
  const rows = await selectLostChunks(deps.db, broadcastId, chunkCount, step);
  return rows.map((r) => r.chunk);
}
