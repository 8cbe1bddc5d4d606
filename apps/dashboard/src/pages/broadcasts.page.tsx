import { SendBroadcastBody, TemplateVariables, type Broadcast, type BroadcastWithCounts } from '@tidings/contracts';
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
  heldMessagesDue,
} from '@tidings/core';
import type { Context } from 'hono';
import { allowEmailStyles } from '../csp.ts';
import { canManage, type DashEnv } from '../env.ts';
import { BroadcastForm, ContactPreview, DraftActions, LinksCard, type BroadcastInput, type ContactPreviewData } from '../views/broadcast-cards.tsx';
import { ProgressBar, ProgressCard, StatusBadge } from '../views/broadcast-progress.tsx';
import { aboutItem, confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { fieldErrorsOf, readFields, type FieldErrors } from '../views/form.tsx';
import { PagedList, Table } from '../views/list.tsx';
import { DetailPage, ForManagers, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { previewOf } from '../views/template-preview.tsx';
import { flashRedirect, orgContext, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/broadcasts';
/** How many templates, segments and contacts the pickers offer. */
const PICK_LIMIT = 100;

type Env = Context<DashEnv>;

async function listPage(c: Env, options: { errors?: FieldErrors; input?: BroadcastInput; status?: 200 | 400 } = {}) {
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
    <TitledPage
      c={c}
      title="Broadcasts"
      intro={`One template sent to every subscribed contact of a segment of ${membership.orgName}, or to all contacts. Each contact gets at most one message.`}
    >
      <ForManagers c={c} readerNote="You can see this organization's broadcasts; owners and operators create and send them.">
        {templates?.data.length === 0 ? (
          <p class="form-note">
            A broadcast sends a template: <a href="/templates">create a template</a> first.
          </p>
        ) : (
          <BroadcastForm
            c={c}
            errors={options.errors ?? {}}
            input={options.input ?? {}}
            templates={templates?.data ?? []}
            segments={segments?.data ?? []}
            topics={topics?.data ?? []}
            liveKeysAllowed={liveKeysAllowed}
          />
        )}
      </ForManagers>
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No broadcasts yet', hint: <p>Create a draft above, preview it for a contact, then send it now or schedule it.</p> }}
        olderLabel="Older broadcasts"
      >
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
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

async function contactPreviewOf(c: Env, broadcast: Broadcast): Promise<ContactPreviewData> {
  const contacts = await listContacts(c.var.deps, orgOf(c), { limit: PICK_LIMIT, offset: 0, segmentId: broadcast.segmentId ?? undefined });
  if (contacts.data.length === 0) return null;
  const picked = contacts.data.find((contact) => contact.id === c.req.query('contact')) ?? contacts.data[0]!;
  return { contacts: contacts.data, picked, state: await previewOf(() => previewBroadcast(c.var.deps, orgOf(c), broadcast.id, picked.id)) };
}

async function detailPage(c: Env, broadcast: BroadcastWithCounts, options: { errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const deps = c.var.deps;
  const [template, segment, topic, preview, links, held] = await Promise.all([
    getTemplate(deps, orgOf(c), broadcast.templateId, { includeDeleted: true }),
    // a segment or topic deleted since is named by its id
    broadcast.segmentId ? getSegment(deps, orgOf(c), broadcast.segmentId).catch(() => null) : null,
    broadcast.topicId ? getTopic(deps, orgOf(c), broadcast.topicId).catch(() => null) : null,
    contactPreviewOf(c, broadcast),
    broadcast.channelType === 'email' && broadcast.status !== 'draft' ? broadcastLinks(deps, orgOf(c), broadcast.id) : [],
    broadcast.counts.waiting > 0 ? heldMessagesDue(deps, orgOf(c), broadcast.id) : null,
  ]);
  allowEmailStyles(c);
  const isManager = canManage(c.var.signedIn);
  return render(
    c,
    <DetailPage
      c={c}
      title={broadcast.name}
      isTitleLong
      back={{ href: BASE, label: 'Broadcasts' }}
      subtitle={
        <>
          {broadcast.channelType === 'email' ? 'Email' : 'SMS'} · {broadcast.mode} mode · <code>{broadcast.id}</code>
        </>
      }
    >
      {isManager && broadcast.status === 'draft' && <DraftActions c={c} broadcast={broadcast} errors={options.errors ?? {}} />}
      <ProgressCard broadcast={broadcast} canCancel={isManager} held={held} />
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
    </DetailPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const input: BroadcastInput = await readFields(c, ['name', 'templateId', 'segmentId', 'topicId', 'from', 'mode', 'variables']);
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
  const { scheduledAt: at } = await readFields(c, ['scheduledAt']);
  // a datetime-local field has no zone: the form says UTC
  const parsed = SendBroadcastBody.safeParse(at ? { scheduledAt: `${at.length === 16 ? `${at}:00` : at}Z` } : {});
  if (!parsed.success) return detailPage(c, broadcast, { errors: { scheduledAt: 'Give a date and time.' }, status: 400 });
  try {
    const sent = await sendBroadcast(orgContext(c), broadcast.id, parsed.data);
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
    ...aboutItem(broadcast.name, `${BASE}/${broadcast.id}`),
    submitLabel: 'Cancel broadcast',
    isDangerous: true,
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
    ...aboutItem(broadcast.name, `${BASE}/${broadcast.id}`),
    submitLabel: 'Retry failed messages',
    isDangerous: false,
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
    ...aboutItem(broadcast.name, `${BASE}/${broadcast.id}`),
    submitLabel: 'Delete draft',
    isDangerous: true,
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
