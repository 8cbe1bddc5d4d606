import type { Segment } from '@tidings/contracts';
import type { Context } from 'hono';
import type { DashEnv } from '../env.ts';
import { listUrl } from './filtered-list.tsx';

const BASE = '/contacts';

/** The contact list's filters as the address gives them ('' when not set). */
export type ContactFilters = { q: string; subscribed: string; segmentId: string };

/** The filters of the contact list's address. */
export function readFilters(c: Context<DashEnv>): ContactFilters {
  const q = (name: string) => (c.req.query(name) ?? '').trim();
  return { q: q('q'), subscribed: q('subscribed'), segmentId: q('segmentId') };
}

/** Search by name or email, subscribed or not, in a segment. */
export function FilterForm({ filters, segments }: { filters: ContactFilters; segments: Segment[] }) {
  return (
    <form method="get" action={BASE} class="card create-row" role="search" aria-label="Filter contacts">
      <label class="grow">
        Search
        <input type="search" name="q" value={filters.q} placeholder="Start of a name or email" maxlength={100} />
      </label>
      <label>
        Subscribed
        <select name="subscribed">
          <option value="">Anyone</option>
          <option value="true" selected={filters.subscribed === 'true'}>
            To email or SMS
          </option>
          <option value="false" selected={filters.subscribed === 'false'}>
            To neither
          </option>
        </select>
      </label>
      {segments.length > 0 && (
        <label>
          Segment
          <select name="segmentId">
            <option value="">All contacts</option>
            {segments.map((segment) => (
              <option value={segment.id} selected={filters.segmentId === segment.id}>
                {segment.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** The export of the contacts these filters show (empty filters left out). */
export const exportUrl = (filters: ContactFilters): string => listUrl(`${BASE}/export.csv`, filters);
