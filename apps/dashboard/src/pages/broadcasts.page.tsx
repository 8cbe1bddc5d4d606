import { SendBroadcastBody, TemplateVariables, type Broadcast, type BroadcastLinks, type BroadcastStatus, type BroadcastWithCounts } from '@tidings/contracts';
import {
  AppError,
  areLiveKeysAllowed,
  broadcastLinks,
  cancelBroadcast,
  retryFailedBroadcastMessages,
  createBroadcast,
  deleteBroadcast,
  getBroadcast,
  getSegment,
  getTemplate,
  listBroadcastsWithCounts,
  listContacts,
  listSegments,
  listTemplates,
  listTopics,
  getTopic,
  previewBroadcast,
  sendBroadcast,
} from '@tidings/core';
import type { Context } from 'hono';
import { takeFlash } from '../auth/cookies.ts';
import { allowEmailStyles } from '../csp.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { Field, fieldErrorsOf, FormCard, FormError, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { EmptyState, OlderLink, Table } from '../views/list.tsx';
import { render, Time } from '../views/render.tsx';
import { PreviewPane, previewOf, type PreviewState } from '../views/template-preview.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/broadcasts';
/** How many templates, segments and contacts the pickers offer. */
const PICK_LIMIT = 100;

type Env = Context<DashEnv>;
type CreateInput = { name?: string; templateId?: string; segmentId?: string; topicId?: string; from?: string; mode?: string; variables?: string };

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** Recipients done with: handed to the provider (whatever came of it) or not sent to (suppressed). */
const doneOf = (counts: BroadcastWithCounts['counts']) => counts.sent + counts.delivered + counts.failed + counts.bounced + counts.suppressed;
const isUnderway = (status: BroadcastStatus) => status === 'scheduled' || status === 'sending';

/** The status, and for a broadcast whose messages failed how many did: never a green "sent" over failures. */
function StatusBadge({ broadcast }: { broadcast: BroadcastWithCounts }) {
  const { status, counts } = broadcast;
  const failed = counts.failed + counts.bounced;
  const tone = failed > 0 && !isUnderway(status) ? 'bad' : status === 'sent' ? 'ok' : status === 'canceled' ? 'off' : status === 'draft' ? 'draft' : 'pending';
  return <span class={`badge status-${tone}`}>{failed > 0 ? `${status}, ${failed} failed` : status}</span>;
}

function CreateForm({
  c,
  errors,
  input,
  templates,
  segments,
  topics,
  liveKeysAllowed,
}: {
  c: Env;
  errors: FieldErrors;
  input: CreateInput;
  templates: { id: string; name: string; channelType: string }[];
  segments: { id: string; name: string }[];
  topics: { id: string; name: string }[];
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

function ProgressBar({ broadcast }: { broadcast: BroadcastWithCounts }) {
  const { counts } = broadcast;
  const done = doneOf(counts);
  if (broadcast.status === 'draft' || broadcast.status === 'scheduled') return <span class="muted">not started</span>;
  return (
    <span class="broadcast-progress">
      <progress value={String(done)} max={String(Math.max(counts.recipients, 1))} aria-label={`${done} of ${counts.recipients} recipients done`}></progress>
      <small>
        {done} of {counts.recipients}
      </small>
    </span>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; input?: CreateInput; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const deps = c.var.deps;
  const page = await listBroadcastsWithCounts(deps, membership.orgId, pageQuery(c));
  const isManager = canManage(c.var.signedIn);
  const [templates, segments, topics, liveKeysAllowed] = isManager
    ? await Promise.all([
        listTemplates(deps, membership.orgId, { limit: PICK_LIMIT, offset: 0, includeDeleted: false }),
        listSegments(deps, membership.orgId, { limit: PICK_LIMIT, offset: 0 }),
        listTopics(deps, membership.orgId, { limit: PICK_LIMIT, offset: 0 }),
        areLiveKeysAllowed(deps, membership.orgId),
      ])
    : [null, null, null, false];
  return render(
    c,
    <Layout c={c} title="Broadcasts" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>Broadcasts</h1>
        <p>One template sent to every subscribed contact of a segment of {membership.orgName}, or to all contacts. Each contact gets at most one message.</p>
      </hgroup>
      {!isManager ? (
        <p class="muted">You can see this organization's broadcasts; owners and operators create and send them.</p>
      ) : templates!.data.length === 0 ? (
        <p class="form-note">
          A broadcast sends a template: <a href="/templates">create a template</a> first.
        </p>
      ) : (
        <CreateForm
          c={c}
          errors={options.errors ?? {}}
          input={options.input ?? {}}
          templates={templates!.data}
          segments={segments!.data}
          topics={topics!.data}
          liveKeysAllowed={liveKeysAllowed}
        />
      )}
      {page.data.length === 0 ? (
        <EmptyState title="No broadcasts yet">
          <p>Create a draft above, preview it for a contact, then send it now or schedule it.</p>
        </EmptyState>
      ) : (
        <Table headers={['Name', 'Channel', 'Status', 'Progress', 'Mode', 'Created']}>
          {page.data.map((broadcast) => (
            <tr data-broadcast-id={broadcast.id}>
              <td class="name">
                <a href={`${BASE}/${broadcast.id}`}>{broadcast.name}</a>
              </td>
              <td>{broadcast.channelType === 'email' ? 'Email' : 'SMS'}</td>
              <td>
                <StatusBadge broadcast={broadcast} />
              </td>
              <td>
                <ProgressBar broadcast={broadcast} />
              </td>
              <td>{broadcast.mode}</td>
              <td>
                <Time at={broadcast.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <OlderLink base={BASE} page={page} label="Older broadcasts" />
    </Layout>,
    options.status ?? 200,
  );
}

/** The broadcast's quiet hours as people read them: "quiet hours (21:00 to 08:00, recipient's time)". */
const quietHoursText = ({ quietHours }: BroadcastWithCounts) => (quietHours ? `quiet hours (${quietHours.start} to ${quietHours.end}, recipient's time)` : 'quiet hours');

/**
 * Progress, counts and the way to cancel; while the broadcast is under way the script fetches this part again
 * (data-refresh), so the cancel button goes when there is nothing left to cancel.
 */
function ProgressCard({ broadcast, canCancel }: { broadcast: BroadcastWithCounts; canCancel: boolean }) {
  const { counts } = broadcast;
  const shown: [string, number][] = [
    ['Recipients', counts.recipients],
    ...(broadcast.quietHours || counts.waiting > 0 ? [[`Waiting for ${quietHoursText(broadcast)} to end`, counts.waiting] as [string, number]] : []),
    ['Queued', counts.queued],
    ['Sent', counts.sent],
    ['Delivered', counts.delivered],
    ['Failed', counts.failed],
    ['Bounced', counts.bounced],
    ['Suppressed', counts.suppressed],
    ['Unsubscribed', counts.unsubscribed],
    ['Opened', counts.opened],
    ['Clicked', counts.clicked],
  ];
  return (
    <section id="progress" class="card" aria-labelledby="progress-title" data-refresh={isUnderway(broadcast.status) ? '' : undefined}>
      <h2 id="progress-title">
        Progress <StatusBadge broadcast={broadcast} />
      </h2>
      <ProgressBar broadcast={broadcast} />
      <Facts
        facts={[
          ['Scheduled for', broadcast.scheduledAt && <Time at={broadcast.scheduledAt} />],
          ['Started', broadcast.startedAt && <Time at={broadcast.startedAt} />],
          ['Completed', broadcast.completedAt && <Time at={broadcast.completedAt} />],
          ['Canceled', broadcast.canceledAt && <Time at={broadcast.canceledAt} />],
        ]}
      />
      <dl class="counts">
        {shown.map(([label, value]) => (
          <div data-count={label.toLowerCase()}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {Object.keys(broadcast.failedReasons).length > 0 && (
        <p class="failed-reasons">
          Failed:{' '}
          {Object.entries(broadcast.failedReasons)
            .map(([code, count]) => `${count} ${code}`)
            .join(', ')}
          . {canCancel && (broadcast.status === 'sent' || broadcast.status === 'sending') && <a href={`${BASE}/${broadcast.id}/retry-failed`}>Retry the failed messages…</a>}
        </p>
      )}
      {canCancel && isUnderway(broadcast.status) && (
        <a href={`${BASE}/${broadcast.id}/cancel`} role="button" class="outline danger-outline cancel-broadcast">
          Cancel broadcast…
        </a>
      )}
    </section>
  );
}

function DraftActions({ c, broadcast, errors }: { c: Env; broadcast: Broadcast; errors: FieldErrors }) {
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
function LinksCard({ broadcast, links }: { broadcast: Broadcast; links: BroadcastLinks }) {
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

type Contact = Awaited<ReturnType<typeof listContacts>>['data'][number];
/** The contacts the preview offers (some of the broadcast's recipients), the one picked, and its rendering. */
type ContactPreviewData = { contacts: Contact[]; picked: Contact; state: PreviewState } | null;

async function contactPreviewOf(c: Env, broadcast: Broadcast): Promise<ContactPreviewData> {
  const contacts = await listContacts(c.var.deps, orgOf(c), { limit: PICK_LIMIT, offset: 0, segmentId: broadcast.segmentId ?? undefined });
  if (contacts.data.length === 0) return null;
  const picked = contacts.data.find((contact) => contact.id === c.req.query('contact')) ?? contacts.data[0]!;
  return { contacts: contacts.data, picked, state: await previewOf(() => previewBroadcast(c.var.deps, orgOf(c), broadcast.id, picked.id)) };
}

/** A picker of contacts of the broadcast's recipients, and the template rendered for the one picked. */
function ContactPreview({ broadcast, data }: { broadcast: Broadcast; data: ContactPreviewData }) {
  if (!data) return <p class="muted">No contact to preview with: {broadcast.segmentId ? 'the segment matches nobody yet' : 'add contacts first'}.</p>;
  const labelOf = (contact: Contact) =>
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

async function detailPage(c: Env, broadcast: BroadcastWithCounts, options: { errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const deps = c.var.deps;
  const [template, segment, topic, preview, links] = await Promise.all([
    getTemplate(deps, orgOf(c), broadcast.templateId, { includeDeleted: true }),
    // a segment or topic deleted since is named by its id
    broadcast.segmentId ? getSegment(deps, orgOf(c), broadcast.segmentId).catch(() => null) : null,
    broadcast.topicId ? getTopic(deps, orgOf(c), broadcast.topicId).catch(() => null) : null,
    contactPreviewOf(c, broadcast),
    broadcast.channelType === 'email' && broadcast.status !== 'draft' ? broadcastLinks(deps, orgOf(c), broadcast.id) : [],
  ]);
  allowEmailStyles(c);
  const isManager = canManage(c.var.signedIn);
  return render(
    c,
    <Layout c={c} title={broadcast.name} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Broadcasts
      </a>
      <hgroup class="page-title">
        <h1 class="break">{broadcast.name}</h1>
        <p>
          {broadcast.channelType === 'email' ? 'Email' : 'SMS'} · {broadcast.mode} mode · <code>{broadcast.id}</code>
        </p>
      </hgroup>
      {isManager && broadcast.status === 'draft' && <DraftActions c={c} broadcast={broadcast} errors={options.errors ?? {}} />}
      <ProgressCard broadcast={broadcast} canCancel={isManager} />
      <LinksCard broadcast={broadcast} links={links} />
      <Facts
        class="facts card"
        facts={[
          [
            'Template',
            <>
              <a href={`/templates/${template.id}`}>{template.name}</a>{' '}
              {broadcast.templateVersion ? `version ${broadcast.templateVersion}` : '(the latest version when it is sent or scheduled)'}
              {template.deletedAt && ' (deleted)'}
            </>,
          ],
          ['Recipients', broadcast.segmentId ? `Segment: ${segment?.name ?? broadcast.segmentId}` : 'All contacts'],
          ['Topic', broadcast.topicId && `${topic?.name ?? `${broadcast.topicId} (deleted)`}: its members only`],
          ['From', broadcast.from ?? 'The default sender'],
          ['Variables', Object.keys(broadcast.variables).length > 0 && <code>{JSON.stringify(broadcast.variables)}</code>],
          ['Tags', broadcast.tags.join(', ')],
          ['Created', <Time at={broadcast.createdAt} />],
        ]}
      />
      <h2 class="section-heading">Preview</h2>
      <ContactPreview broadcast={broadcast} data={preview} />
    </Layout>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const input: CreateInput = {
    name: str(form.name),
    templateId: str(form.templateId),
    segmentId: str(form.segmentId),
    topicId: str(form.topicId),
    from: str(form.from),
    mode: str(form.mode),
    variables: str(form.variables),
  };
  const refuse = (errors: FieldErrors) => listPage(c, { errors, input, status: 400 });
  if (!input.name) return refuse({ name: 'Give the broadcast a name.' });
  let variables: unknown = {};
  try {
    variables = JSON.parse(input.variables || '{}');
  } catch {
    return refuse({ variables: 'Not valid JSON.' });
  }
  const parsedVariables = TemplateVariables.safeParse(variables);
  if (!parsedVariables.success) return refuse({ variables: `${parsedVariables.error.issues[0]?.message ?? 'expected a JSON object'}.` });
  const mode = input.mode === 'live' ? 'live' : 'test';
  if (mode === 'live' && !(await areLiveKeysAllowed(c.var.deps, orgOf(c))))
    return refuse({ form: 'This organization sends in test mode only until an operator allows live sending.' });
  // the template's channel is the broadcast's; another organization's template is not found (404)
  const template = await getTemplate(c.var.deps, orgOf(c), input.templateId!, {});
  try {
    const created = await createBroadcast(c.var.deps, orgOf(c), mode, {
      name: input.name,
      channelType: template.channelType,
      templateId: template.id,
      segmentId: input.segmentId || undefined,
      topicId: input.topicId || undefined,
      from: input.from || undefined,
      variables: parsedVariables.data,
    });
    return flashRedirect(c, 'Draft created: preview it below, then send it now or schedule it.', `${BASE}/${created.id}`);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw error; // another organization's segment or topic: 404
    return refuse(fieldErrorsOf(error, ['from', 'templateId', 'segmentId']));
  }
});

const loadBroadcast = (c: Env) => getBroadcast(c.var.deps, orgOf(c), c.req.param('id')!);

routes.get('/:id', async (c) => detailPage(c, await loadBroadcast(c)));

routes.post('/:id/send', async (c) => {
  const broadcast = await loadBroadcast(c);
  const at = str((await c.req.parseBody()).scheduledAt);
  // a datetime-local field has no zone: the form says UTC
  const parsed = SendBroadcastBody.safeParse(at ? { scheduledAt: `${at.length === 16 ? `${at}:00` : at}Z` } : {});
  if (!parsed.success) return detailPage(c, broadcast, { errors: { scheduledAt: 'Give a date and time.' }, status: 400 });
  try {
    const sent = await sendBroadcast(c.var.deps, orgOf(c), broadcast.id, parsed.data);
    const notice = sent.status === 'scheduled' ? `Scheduled: sending starts ${sent.scheduledAt} (UTC).` : 'Sending: the progress below follows it.';
    return flashRedirect(c, notice, `${BASE}/${sent.id}`);
  } catch (error) {
    return detailPage(c, broadcast, { errors: fieldErrorsOf(error, ['scheduledAt']), status: 400 });
  }
});

confirmedAction(routes, 'cancel', {
  load: loadBroadcast,
  ask: (broadcast) => ({
    title: 'Cancel this broadcast',
    subtitle: <strong>{broadcast.name}</strong>,
    submitLabel: 'Cancel broadcast',
    isDangerous: true,
    back: { href: `${BASE}/${broadcast.id}`, label: broadcast.name },
    children: <p>Nothing more is sent: messages not yet handed to a provider are canceled. Messages already sent stay sent. This cannot be undone.</p>,
  }),
  act: async (c, broadcast) => {
    await cancelBroadcast(c.var.deps, orgOf(c), broadcast.id);
    return flashRedirect(c, 'The broadcast is canceled: nothing more is sent.', `${BASE}/${broadcast.id}`);
  },
});

confirmedAction(routes, 'retry-failed', {
  load: loadBroadcast,
  ask: (broadcast) => ({
    title: 'Retry the failed messages',
    subtitle: <strong>{broadcast.name}</strong>,
    submitLabel: 'Retry failed messages',
    isDangerous: false,
    back: { href: `${BASE}/${broadcast.id}`, label: broadcast.name },
    children: (
      <p>
        Messages that failed for a reason that can pass (a provider error, a render that ran out of time) are sent again, each contact still once. Suppressed and bounced recipients
        are not.
      </p>
    ),
  }),
  act: async (c, broadcast) => {
    const { count } = await retryFailedBroadcastMessages(c.var.deps, orgOf(c), broadcast.id);
    return flashRedirect(c, `${count} failed message(s) queued again.`, `${BASE}/${broadcast.id}`);
  },
});

confirmedAction(routes, 'delete', {
  load: loadBroadcast,
  ask: (broadcast) => ({
    title: 'Delete this draft',
    subtitle: <strong>{broadcast.name}</strong>,
    submitLabel: 'Delete draft',
    isDangerous: true,
    back: { href: `${BASE}/${broadcast.id}`, label: broadcast.name },
    children: <p>The draft is removed; nothing was sent with it.</p>,
  }),
  act: async (c, broadcast) => {
    await deleteBroadcast(c.var.deps, orgOf(c), broadcast.id);
    return flashRedirect(c, `The draft “${broadcast.name}” is deleted.`, BASE);
  },
});

/** Broadcasts: list with progress, create from a template and a segment, preview for one contact, send or schedule, cancel. */
export const broadcastsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Broadcasts', href: BASE, section: 'main' },
  routes,
};
