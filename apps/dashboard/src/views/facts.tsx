import type { Child } from 'hono/jsx';

/** A fact's label and value; a value of null, undefined, false or '' leaves the fact out. */
export type Fact = [label: string, value: Child];

/**
 * Facts about one thing (a message, an endpoint, a number) as label and value rows, without the empty ones.
 * @example <Facts class="facts card" facts={[['Provider', number.provider], ['ID', <code>{number.id}</code>]]} />
 */
export function Facts({ facts, class: className = 'facts' }: { facts: Fact[]; class?: string }) {
  return (
    <dl class={className}>
      {facts
        .filter(([, value]) => value !== null && value !== undefined && value !== false && value !== '')
        .map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </>
        ))}
    </dl>
  );
}
