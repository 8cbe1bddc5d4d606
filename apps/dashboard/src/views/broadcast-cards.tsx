import type { Broadcast, BroadcastLinks } from '@tidings/contracts';
import type { listContacts } from '@tidings/core';
import type { Context } from 'hono';
import type { DashEnv } from '../env.ts';
import { Field, FormCard, FormError, type FieldErrors } from './form.tsx';
import { CsrfField } from './layout.tsx';
import { Table } from './list.tsx';
import { PreviewPane, type PreviewState } from './template-preview.tsx';

const BASE = '/broadcasts';

/** The new-broadcast form's fields as typed, kept when it is refused. */
export type BroadcastInput = { name?: string; templateId?: string; segmentId?: string; topicId?: string; from?: string; mode?: string; variables?: string };

type Option = { id: string; name: string };

/** The new-broadcast form: a template, its recipients (a segment or all contacts), a topic, the sender, the mode and shared variables. */
export function BroadcastForm({
  c,
  errors,
  input,
  templates,
  segments,
  topics,
  liveKeysAllowed,
}: {
  c: Context<DashEnv>;
  errors: FieldErrors;
  input: BroadcastInput;
  templates: { id: string; name: string; channelType: string }[];
  segments: Option[];
  topics: Option[];
  liveKeysAllowed: boolean;
}) {
  return (
    <FormCard c={c} id="create-broadcast-title" title="New broadcast" action={BASE} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="name" label="Name" errors={errors} value={input.name} placeholder="e.g. November newsletter" maxlength={200} required />
        <label class="grow">
          Template
          <select name="templateId" required aria-invalid={errors.templateId ? 'true' : undefined}>
            {templates.map((template) => (
              <option value={template.id} selected={input.templateId === template.id}>
                {template.name} ({template.channelType === 'email' ? 'Email' : 'SMS'})
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Recipients
          <select name="segmentId">
            <option value="">All contacts</option>
            {segments.map((segment) => (
              <option value={segment.id} selected={input.segmentId === segment.id}>
                Segment: {segment.name}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Topic
          <select name="topicId">
            <option value="">No topic</option>
            {topics.map((topic) => (
              <option value={topic.id} selected={input.topicId === topic.id}>
                {topic.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="create-row">
        <Field
          class="grow"
          name="from"
          label="From"
          errors={errors}
          value={input.from}
          placeholder="optional: the default sender"
          hint="An address of a verified domain, or a number of this organization."
        />
        <label>
          Mode
          <select name="mode">
            <option value="test" selected={input.mode !== 'live'}>
              Test (sandbox: nothing leaves)
            </option>
            {liveKeysAllowed && (
              <option value="live" selected={input.mode === 'live'}>
                Live
              </option>
            )}
          </select>
        </label>
      </div>
      <label>
        Variables (JSON, shared by every message)
        <textarea name="variables" rows={2} class="code" placeholder='{"month": "November"}' aria-invalid={errors.variables ? 'true' : undefined}>
          {input.variables}
        </textarea>
        {errors.variables && <small>{errors.variables}</small>}
      </label>
      <button type="submit">Create draft</button>
    </FormCard>
  );
}

/** A draft's actions: send now, schedule (UTC), delete. */
export function DraftActions({ c, broadcast, errors }: { c: Context<DashEnv>; broadcast: Broadcast; errors: FieldErrors }) {
  return (
    <section class="card" aria-labelledby="send-title">
      <h2 id="send-title">Send</h2>
      <FormError errors={errors} />
      <div class="create-row">
        <form method="post" action={`${BASE}/${broadcast.id}/send`}>
          <CsrfField c={c} />
          <button type="submit">Send now</button>
        </form>
        <form method="post" action={`${BASE}/${broadcast.id}/send`} class="create-row">
          <CsrfField c={c} />
          <Field name="scheduledAt" label="Or at (UTC)" type="datetime-local" errors={errors} required />
          <button type="submit" class="secondary">
            Schedule
          </button>
        </form>
        <a href={`${BASE}/${broadcast.id}/delete`} role="button" class="outline danger-outline">
          Delete draft…
        </a>
      </div>
      <p class="muted">The recipients are fixed when sending starts: contacts added to the segment until then are included.</p>
    </section>
  );
}

/** Each clicked link with its clicks and unique clicks (broadcast.links), most clicked first. */
export function LinksCard({ broadcast, links }: { broadcast: Broadcast; links: BroadcastLinks }) {
  if (broadcast.channelType !== 'email' || broadcast.status === 'draft') return null;
  return (
    <section class="card" aria-labelledby="links-title" id="links">
      <h2 id="links-title">Links</h2>
      {links.length === 0 ? (
        <p class="muted">No clicks yet. Clicks are counted when the provider reports them, or with click tracking on the sending domain.</p>
      ) : (
        <Table headers={['Link', 'Clicks', 'Unique clicks']}>
          {links.map((link) => (
            <tr data-link={link.url}>
              <td class="break">
                <a href={link.url} rel="noreferrer noopener" target="_blank">
                  {link.url}
                </a>
              </td>
              <td>{link.clicks}</td>
              <td>{link.uniqueClicks}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** A contact as the preview's picker lists it. */
type PreviewContact = Awaited<ReturnType<typeof listContacts>>['data'][number];
/** The contacts the preview offers (some of the broadcast's recipients), the one picked, and its rendering. */
export type ContactPreviewData = { contacts: PreviewContact[]; picked: PreviewContact; state: PreviewState } | null;

/** A picker of contacts of the broadcast's recipients, and the template rendered for the one picked. */
export function ContactPreview({ broadcast, data }: { broadcast: Broadcast; data: ContactPreviewData }) {
  if (!data) return <p class="muted">No contact to preview with: {broadcast.segmentId ? 'the segment matches nobody yet' : 'add contacts first'}.</p>;
  const labelOf = (contact: PreviewContact) =>
    [[contact.firstName, contact.lastName].filter(Boolean).join(' '), broadcast.channelType === 'email' ? contact.email : contact.phone].filter(Boolean).join(' · ') || contact.id;
  return (
    <>
      <form method="get" action={`${BASE}/${broadcast.id}`} class="create-row preview-picker">
        <label class="grow">
          Preview for
          <select name="contact" data-autosubmit>
            {data.contacts.map((contact) => (
              <option value={contact.id} selected={contact.id === data.picked.id}>
                {labelOf(contact)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      <PreviewPane state={data.state} title={`What ${labelOf(data.picked)} gets`} />
    </>
  );
}
