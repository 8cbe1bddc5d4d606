// Timestamps as the pages show them; apart from render.tsx so views the layout uses can import them without a cycle.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Nov 23, 2026 09:05` (UTC): short enough for a table column. */
export function formatTime(at: string): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** A timestamp for tables, in UTC, with the exact time on hover. */
export function Time({ at, empty = '—' }: { at: string | null; empty?: string }) {
  if (!at) return <span class="muted">{empty}</span>;
  return (
    <time datetime={at} title={`${at} (UTC)`}>
      {formatTime(at)}
    </time>
  );
}
