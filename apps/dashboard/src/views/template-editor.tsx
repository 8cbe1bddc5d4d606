import { TemplateVariables, UpdateTemplateBody, type Template } from '@tidings/contracts';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { Field, FormError, readFields, TextAreaField, zodFieldErrors, type FieldErrors } from './form.tsx';
import { CsrfField } from './layout.tsx';

const BASE = '/templates';

/** The editor's fields as typed (strings), kept when a save or preview is refused so nothing typed is lost. */
export type EditorInput = { name: string; subject: string; html: string; text: string; body: string; replyTo: string; variables: string };

// Browsers send a textarea's line breaks as CRLF: kept, every save would change every line.
const withLineFeeds = (text: string) => text.replace(/\r\n/g, '\n');

/** What `contact.*` shows in a preview when the organization has no contact yet. */
const SAMPLE_CONTACT = { id: 'con_sample', email: 'ada@example.com', phone: '+14155550123', firstName: 'Ada', lastName: 'Lovelace', attributes: {} };
export type SampleContact =
  | typeof SAMPLE_CONTACT
  | { id: string; email: string | null; phone: string | null; firstName: string | null; lastName: string | null; attributes: unknown };

/**
 * Sample values the preview starts with: each variable the template uses as its own name in brackets, nested along
 * its dots (`order.number`), and `contact` as a broadcast fills it: the chosen or newest contact, else a sample one.
 */
export function sampleVariables(template: Template, contact: SampleContact = SAMPLE_CONTACT): string {
  const sample: Record<string, unknown> = {};
  for (const name of template.variables) {
    const path = name.split('.');
    if (path[0] === 'contact') continue;
    let at = sample;
    for (const key of path.slice(0, -1)) {
      if (!at[key] || typeof at[key] !== 'object') at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    at[path.at(-1)!] = `[${name}]`;
  }
  if (template.variables.some((name) => name === 'contact' || name.startsWith('contact.'))) sample.contact = { ...contact, attributes: contact.attributes ?? {} };
  return JSON.stringify(sample, null, 2);
}

/** The editor's fields for a stored template, with sample variables for the preview. */
export function inputOf(template: Template, contact?: SampleContact): EditorInput {
  return {
    name: template.name,
    subject: template.subject ?? '',
    html: template.html ?? '',
    text: template.text ?? '',
    body: template.body ?? '',
    replyTo: template.replyTo.join(', '),
    variables: sampleVariables(template, contact),
  };
}

/** The posted editor as typed. */
export const readInput = (c: Context<DashEnv>): Promise<EditorInput> => readFields(c, ['name', 'subject', 'html', 'text', 'body', 'replyTo', 'variables'], withLineFeeds);

/** The editor's content as template.update changes; an emptied html or text part is removed (null). */
function changesOf(template: Template, input: EditorInput): Record<string, unknown> {
  if (template.channelType === 'sms') return { name: input.name, body: input.body };
  const replyTo = input.replyTo
    .split(/[,\n]/)
    .map((address) => address.trim())
    .filter(Boolean);
  return { name: input.name, subject: input.subject, html: input.html || null, text: input.text || null, replyTo: replyTo.length ? replyTo : null };
}

/** The sample variables as template.preview takes them, or the reason they are not. */
export function parseVariables(json: string): { variables: TemplateVariables } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(json.trim() || '{}');
  } catch {
    return { error: 'Sample variables: not valid JSON.' };
  }
  const parsed = TemplateVariables.safeParse(value);
  if (!parsed.success) return { error: `Sample variables: ${parsed.error.issues[0]?.message ?? 'expected a JSON object'}.` };
  return { variables: parsed.data };
}

/** The editor's content checked as template.update checks it, or its errors by field. */
export function parseChanges(template: Template, input: EditorInput): { changes: UpdateTemplateBody } | { errors: FieldErrors } {
  const parsed = UpdateTemplateBody.safeParse(changesOf(template, input));
  return parsed.success ? { changes: parsed.data } : { errors: zodFieldErrors(parsed.error.issues) };
}

/** Email or SMS, as a badge. */
export function ChannelBadge({ channelType }: { channelType: string }) {
  return <span class="badge">{channelType === 'email' ? 'Email' : 'SMS'}</span>;
}

/** The editor: name and content (read-only for members), sample variables, save as the next version or preview. */
export function EditorForm({ c, template, input, errors }: { c: Context<DashEnv>; template: Template; input: EditorInput; errors: FieldErrors }) {
  const isManager = canManage(c.var.signedIn);
  return (
    <form method="post" action={`${BASE}/${template.id}`} class="card template-editor" data-live-preview={isManager ? `${BASE}/${template.id}/preview` : undefined}>
      <CsrfField c={c} />
      <FormError errors={errors} />
      <fieldset disabled={!isManager}>
        <Field name="name" label="Name" errors={errors} value={input.name} maxlength={200} required />
        {template.channelType === 'email' ? (
          <>
            <Field name="subject" label="Subject" errors={errors} value={input.subject} required />
            <TextAreaField name="html" label="HTML" value={input.html} rows={10} errors={errors} hint="Placeholder values are HTML-escaped." />
            <TextAreaField name="text" label="Text part" value={input.text} rows={5} errors={errors} />
            <Field name="replyTo" label="Reply-To" errors={errors} value={input.replyTo} placeholder="optional; several separated by commas" />
          </>
        ) : (
          <TextAreaField name="body" label="Message" value={input.body} rows={5} errors={errors} />
        )}
        <TextAreaField name="variables" label="Sample variables (JSON)" value={input.variables} rows={4} errors={errors} hint="Only for the preview; nothing is saved or sent." />
      </fieldset>
      {isManager && (
        <div class="actions">
          <button type="submit">Save as version {template.version + 1}</button>
          <button type="submit" class="secondary outline" formaction={`${BASE}/${template.id}/preview`}>
            Preview
          </button>
        </div>
      )}
    </form>
  );
}
