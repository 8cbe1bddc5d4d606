import { AttributeKey, type Contact, type JsonValue, type Topic } from '@tidings/contracts';
import { isInTopic } from '@tidings/core';
import type { Context } from 'hono';
import { attributeFromText, attributeToText } from '../attribute-text.ts';
import type { DashEnv } from '../env.ts';
import { Field, FormError, type FieldErrors } from './form.tsx';
import { CsrfField } from './layout.tsx';

/** Blank attribute rows a contact form offers for new keys (no script needed to add one). */
const BLANK_ATTRIBUTE_ROWS = 3;

type Env = Context<DashEnv>;
/** A contact form as typed. */
export type ContactInput = { email: string; phone: string; firstName: string; lastName: string; emailSubscribed: boolean; smsSubscribed: boolean; attributes: [string, string][] };

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

/** The form's fields for a stored contact, or for a new one (subscribed to both, no attributes). */
export function inputOf(contact?: Contact): ContactInput {
  return {
    email: contact?.email ?? '',
    phone: contact?.phone ?? '',
    firstName: contact?.firstName ?? '',
    lastName: contact?.lastName ?? '',
    emailSubscribed: contact?.emailSubscribed ?? true,
    smsSubscribed: contact?.smsSubscribed ?? true,
    attributes: Object.entries(contact?.attributes ?? {}).map(([key, value]) => [key, attributeToText(value)]),
  };
}

/** The posted contact form as typed; attribute rows left wholly empty are dropped. */
export async function readContactForm(c: Env): Promise<ContactInput> {
  const form = await c.req.parseBody({ all: true });
  const text = (name: string) => String(form[name] ?? '').trim();
  const keys = asList(form.attrKey);
  const values = asList(form.attrValue);
  return {
    email: text('email'),
    phone: text('phone'),
    firstName: text('firstName'),
    lastName: text('lastName'),
    emailSubscribed: form.emailSubscribed === 'on',
    smsSubscribed: form.smsSubscribed === 'on',
    attributes: keys.map((key, i) => [key.trim(), values[i] ?? ''] as [string, string]).filter(([key, value]) => key !== '' || value.trim() !== ''),
  };
}

/** The attribute rows as JSON values; a row with a value but no key is an error on `attributes`. */
export function attributesOf(input: ContactInput): Record<string, JsonValue> | string {
  const attributes: Record<string, JsonValue> = {};
  for (const [key, text] of input.attributes) {
    if (key === '') return 'Give each attribute value a name.';
    if (!AttributeKey.safeParse(key).success) return `“${key.slice(0, 64)}”: attribute names are 1 to 64 letters, digits, _ or -, starting with a letter or _.`;
    const value = attributeFromText(text);
    if (value !== undefined) attributes[key] = value;
  }
  return attributes;
}

/**
 * The contact form (add and edit): fields, subscription switches, and attributes as name/value rows, with a few blank
 * rows for new ones.
 * @example <ContactForm c={c} action="/contacts" input={inputOf()} errors={{}} submitLabel="Add contact" />
 */
export function ContactForm({ c, action, input, errors, submitLabel }: { c: Env; action: string; input: ContactInput; errors: FieldErrors; submitLabel: string }) {
  const rows = [...input.attributes, ...Array.from({ length: BLANK_ATTRIBUTE_ROWS }, (): [string, string] => ['', ''])];
  return (
    <form method="post" action={action} class="card" id="contact-form">
      <CsrfField c={c} />
      <FormError errors={errors} />
      <div class="create-row">
        <Field class="grow" name="email" label="Email" type="email" errors={errors} value={input.email} maxlength={254} />
        <Field class="grow" name="phone" label="Phone" errors={errors} value={input.phone} placeholder="+14155550123" maxlength={32} />
      </div>
      <div class="create-row">
        <Field class="grow" name="firstName" label="First name" errors={errors} value={input.firstName} maxlength={100} />
        <Field class="grow" name="lastName" label="Last name" errors={errors} value={input.lastName} maxlength={100} />
      </div>
      <fieldset>
        <label>
          <input type="checkbox" name="emailSubscribed" checked={input.emailSubscribed} /> Subscribed to email
        </label>
        <label>
          <input type="checkbox" name="smsSubscribed" checked={input.smsSubscribed} /> Subscribed to SMS
        </label>
      </fieldset>
      <fieldset class="attributes" aria-invalid={errors.attributes ? 'true' : undefined}>
        <legend>Attributes</legend>
        <p class="muted">
          A value that reads as JSON is stored as such (<code>12</code>, <code>true</code>, <code>["a","b"]</code>); anything else as text. Empty a row to remove that attribute.
        </p>
        {rows.map(([key, value], i) => (
          <div class="create-row attribute-row">
            <label class="grow">
              Name
              <input name="attrKey" value={key} maxlength={64} aria-label={`Attribute ${i + 1} name`} />
            </label>
            <label class="grow">
              Value
              <input name="attrValue" value={value} aria-label={`Attribute ${i + 1} value`} />
            </label>
          </div>
        ))}
        {errors.attributes && <small class="field-error">{errors.attributes}</small>}
      </fieldset>
      <button type="submit">{submitLabel}</button>
    </form>
  );
}

/** What changed between the stored contact and the form, as contact.update's body (removed attributes as null). */
export function changesOf(contact: Contact, input: ContactInput, attributes: Record<string, JsonValue>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const text = { email: contact.email, phone: contact.phone, firstName: contact.firstName, lastName: contact.lastName };
  for (const [name, stored] of Object.entries(text)) {
    const typed = input[name as keyof typeof text];
    if (typed !== (stored ?? '')) changes[name] = typed === '' ? null : typed;
  }
  if (input.emailSubscribed !== contact.emailSubscribed) changes.emailSubscribed = input.emailSubscribed;
  if (input.smsSubscribed !== contact.smsSubscribed) changes.smsSubscribed = input.smsSubscribed;
  const attributeChanges: Record<string, JsonValue> = {};
  for (const key of Object.keys(contact.attributes)) if (!(key in attributes)) attributeChanges[key] = null;
  for (const [key, value] of Object.entries(attributes)) if (JSON.stringify(contact.attributes[key]) !== JSON.stringify(value)) attributeChanges[key] = value;
  if (Object.keys(attributeChanges).length > 0) changes.attributes = attributeChanges;
  return changes;
}

/** The contact's state in each topic of the organization; managers change it with the checkboxes. */
export function ContactTopics({ c, contact, topics, manage }: { c: Env; contact: Contact; topics: Topic[]; manage: boolean }) {
  if (topics.length === 0) return <p class="muted">No topics yet: they are made under Topics.</p>;
  const choices = Object.fromEntries(contact.topics.map((t) => [t.topicId, t.subscribed]));
  return (
    <form method="post" action={`/contacts/${contact.id}/topics`} class="card" id="contact-topics">
      <CsrfField c={c} />
      {topics.map((topic) => (
        <label data-topic-id={topic.id}>
          <input type="hidden" name="shown" value={topic.id} />
          <input type="checkbox" name="topic" value={topic.id} checked={isInTopic(choices, topic)} disabled={!manage} /> {topic.name}{' '}
          <span class="muted">
            {topic.id in choices ? (choices[topic.id] ? 'subscribed' : 'unsubscribed') : `never chose (${topic.defaultSubscription === 'opt_in' ? 'opt-in' : 'opt-out'})`}
          </span>
        </label>
      ))}
      {manage && (
        <button type="submit" class="secondary">
          Save topics
        </button>
      )}
    </form>
  );
}
