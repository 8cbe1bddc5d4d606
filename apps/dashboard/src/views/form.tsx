import { AppError, PASSWORD_MIN_LENGTH } from '@tidings/core';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { DashEnv } from '../env.ts';
import { CsrfField } from './layout.tsx';

/** Errors of a form by field name; `form` is for the ones that belong to no single field. */
export type FieldErrors = Record<string, string>;

/**
 * Turns a core AppError (`"email: must be a valid email address"`) into an error on that field of the form, so it is
 * shown next to the input; anything else is re-thrown.
 */
export function fieldErrorsOf(error: unknown, fields: string[]): FieldErrors {
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  const match = /^(\w+): (.*)$/.exec(error.message);
  if (match && fields.includes(match[1]!)) return { [match[1]!]: `${capitalize(match[2]!)}.` };
  return { form: error.message };
}

/** A zod failure of a form as an error per field (the first one of each), shown next to the inputs. */
export function zodFieldErrors(issues: { path: PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) errors[String(issue.path[0] ?? 'form')] ??= `${capitalize(issue.message)}.`;
  return errors;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type FieldProps = {
  name: string;
  label: string;
  errors: FieldErrors;
  type?: string;
  value?: string;
  hint?: string;
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
  minlength?: number;
  maxlength?: number;
  size?: number;
  autofocus?: boolean;
  /** Of the label: `grow` makes it take the free width of a `create-row`. */
  class?: string;
};

/**
 * A labelled input with its hint, and its error in place of the hint (Pico marks it red with aria-invalid).
 * @example <Field name="email" label="Email" type="email" errors={errors} value={email} required />
 */
export function Field({ name, label, errors, type = 'text', value, hint, class: className, ...attributes }: FieldProps) {
  const error = errors[name];
  const helpId = `${name}-help`;
  return (
    <label class={className}>
      {label}
      <input type={type} name={name} value={value} {...attributes} aria-invalid={error ? 'true' : undefined} aria-describedby={error || hint ? helpId : undefined} />
      {(error || hint) && <small id={helpId}>{error ?? hint}</small>}
    </label>
  );
}

/**
 * The new password of a sign-up, an invitation, a reset or a change: at least PASSWORD_MIN_LENGTH characters (the
 * browser checks it first), offered to the password manager as new; `note` follows the length in the hint.
 * @example <NewPasswordField label="New password" errors={errors} note="Your other sessions end; this one stays." />
 */
export function NewPasswordField({ label, errors, note, autofocus }: { label: string; errors: FieldErrors; note?: string; autofocus?: boolean }) {
  return (
    <Field
      name="password"
      label={label}
      type="password"
      errors={errors}
      autocomplete="new-password"
      minlength={PASSWORD_MIN_LENGTH}
      hint={`At least ${PASSWORD_MIN_LENGTH} characters.${note ? ` ${note}` : ''}`}
      required
      autofocus={autofocus}
    />
  );
}

/** The error that belongs to the whole form, above its fields. */
export function FormError({ errors }: { errors: FieldErrors }) {
  if (!errors.form) return null;
  return (
    <p class="form-error" role="alert">
      {errors.form}
    </p>
  );
}

type FormCardProps = { c: Context<DashEnv>; id: string; title: string; action: string; errors: FieldErrors; children?: Child };

/**
 * A card with a titled form that posts to `action` (a list page's "add" form): its CSRF token, then its form-wide
 * error, then the fields. `id` names the title, which labels the card.
 * @example <FormCard c={c} id="add-domain-title" title="Add a domain" action="/domains" errors={errors}>...</FormCard>
 */
export function FormCard({ c, id, title, action, errors, children }: FormCardProps) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <form method="post" action={action}>
        <CsrfField c={c} />
        <FormError errors={errors} />
        {children}
      </form>
    </section>
  );
}

/** A posted field as text: '' for a missing one or a file. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The named text fields of the posted form, each through `clean` (trimmed by default); a missing field is ''.
 * @example const input = await readFields(c, ['name', 'from']); // { name: 'Ada', from: '' }
 */
export async function readFields<Name extends string>(
  c: Context<DashEnv>,
  names: readonly Name[],
  clean: (text: string) => string = (text) => text.trim(),
): Promise<Record<Name, string>> {
  const form = await c.req.parseBody();
  return Object.fromEntries(names.map((name) => [name, clean(textOf(form[name]))])) as Record<Name, string>;
}

type TextAreaFieldProps = { name: string; label: string; value: string; rows: number; errors: FieldErrors; hint?: string };

/**
 * A labelled textarea in a code font (HTML, JSON) with its hint, and its error in place of the hint.
 * @example <TextAreaField name="html" label="HTML" value={input.html} rows={10} errors={errors} />
 */
export function TextAreaField({ name, label, value, rows, errors, hint }: TextAreaFieldProps) {
  const error = errors[name];
  return (
    <label>
      {label}
      <textarea name={name} rows={rows} class="code" aria-invalid={error ? 'true' : undefined} aria-describedby={error || hint ? `${name}-help` : undefined}>
        {value}
      </textarea>
      {(error || hint) && <small id={`${name}-help`}>{error ?? hint}</small>}
    </label>
  );
}
