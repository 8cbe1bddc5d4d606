import type { Template } from '@tidings/contracts';
import { diffLines } from 'diff';

// Each side ends its last line, so a line added at the end does not show the line before it as changed.
const asLines = (text: string | null): string => (!text || text.endsWith('\n') ? (text ?? '') : `${text}\n`);

/** One part of two versions, line by line: removed lines struck out, added ones marked; nothing when it is the same. */
function PartDiff({ label, before, after }: { label: string; before: string | null; after: string | null }) {
  if ((before ?? '') === (after ?? '')) return null;
  return (
    <section class="diff-part" data-part={label}>
      <h3 class="part-heading">{label}</h3>
      <pre class="diff">
        {diffLines(asLines(before), asLines(after)).map((change) =>
          change.added ? <ins>{change.value}</ins> : change.removed ? <del>{change.value}</del> : <span>{change.value}</span>,
        )}
      </pre>
    </section>
  );
}

/** The changes between two versions of a template, part by part. */
export function VersionDiff({ from, to }: { from: Template; to: Template }) {
  const parts = [
    ['Subject', from.subject, to.subject],
    ['HTML', from.html, to.html],
    ['Text part', from.text, to.text],
    ['Message', from.body, to.body],
    ['Reply-To', from.replyTo.join('\n'), to.replyTo.join('\n')],
  ] as const;
  const isSame = parts.every(([, before, after]) => (before ?? '') === (after ?? ''));
  return (
    <section class="card" id="version-diff" aria-labelledby="diff-title">
      <h2 id="diff-title">
        Changes from version {from.version} to version {to.version}
      </h2>
      {isSame ? <p class="muted">The content of the two versions is the same.</p> : parts.map(([label, before, after]) => <PartDiff label={label} before={before} after={after} />)}
    </section>
  );
}
