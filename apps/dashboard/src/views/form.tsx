import { AppError } from '@tidings/core';

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
  required?: boolean;
  autocomplete?: string;
  minlength?: number;
  autofocus?: boolean;
};

/** A labelled input with its hint, and its error in place of the hint (Pico marks it red with aria-invalid). */
export function Field({ name, label, errors, type = 'text', value, hint, required, autocomplete, minlength, autofocus }: FieldProps) {
  const error = errors[name];
  const helpId = `${name}-help`;
  return (
    <label>
      {label}
      <input
        type={type}
        name={name}
        value={value}
        required={required}
        autocomplete={autocomplete}
        minlength={minlength}
        autofocus={autofocus}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error || hint ? helpId : undefined}
      />
      {(error || hint) && <small id={helpId}>{error ?? hint}</small>}
    </label>
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
