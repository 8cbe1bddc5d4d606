import type { Child } from 'hono/jsx';

type RevealCardProps = {
  /** The card's id, for a page that links or scrolls to it. */
  id?: string;
  title: Child;
  /** Id of the read-only input the copy button copies (app.js). */
  inputId: string;
  /** The secret or link, shown this once. */
  value: string;
  /** What the value is, for screen readers. */
  label: string;
  /** What to do with it. */
  children?: Child;
  /** Several values (recovery codes): one per line of a read-only text area, copied together. */
  values?: string[];
};

/**
 * A secret or link shown once (a new API key, a signing secret, an invitation link), with a button to copy it.
 * @example <RevealCard title="API key created" inputId="new-key" value={secret} label="New API key"><p>Copy it now.</p></RevealCard>
 */
export function RevealCard({ id, title, inputId, value, label, children, values }: RevealCardProps) {
  return (
    <article class="reveal" id={id}>
      <header>
        <strong>{title}</strong>
      </header>
      {children}
      <div role="group">
        {values ? (
          <textarea id={inputId} readonly rows={values.length} aria-label={label} class="reveal-lines">
            {values.join('\n')}
          </textarea>
        ) : (
          <input id={inputId} readonly value={value} aria-label={label} />
        )}
        <button type="button" data-copy={`#${inputId}`}>
          Copy
        </button>
      </div>
    </article>
  );
}
