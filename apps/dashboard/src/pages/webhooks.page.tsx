import { CreateWebhookBody, EventType, ReplayWebhookBody, type WebhookDeliveryDetail, type WebhookDetail } from '@tidings/contracts';
import {
  AppError,
  createWebhook,
  disableWebhook,
  getWebhook,
  getWebhookDelivery,
  listWebhooks,
  organizationMode,
  replayWebhookDeliveries,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '@tidings/core';
import type { Context } from 'hono';
import { showOnceAt, takeReveal } from '../auth/reveal.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { Field, fieldErrorsOf, FormCard, type FieldErrors } from '../views/form.tsx';
import { CsrfField } from '../views/layout.tsx';
import { PagedList } from '../views/list.tsx';
import { DetailPage, ForManagers, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { DetailActions, ReplayForm, SecretCard } from '../views/webhook-cards.tsx';
import { WebhookBadge, whyDisabled } from '../views/webhook-state.tsx';
import { AttemptsTable, DeliveriesTable, DeliveryStatus, WebhooksTable } from '../views/webhook-tables.tsx';
import { flashRedirect, orgContext, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/webhooks';

type Env = Context<DashEnv>;
type CreateInput = { url?: string; description?: string; events?: string[] };

/** A form field sent once or several times (checkboxes), as a list. */
const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

function CreateForm({ c, errors, input }: { c: Env; errors: FieldErrors; input: CreateInput }) {
  const checked = new Set(input.events ?? ['message.delivered', 'message.bounced', 'message.failed']);
  return (
    <FormCard c={c} id="create-webhook-title" title="New endpoint" action={BASE} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="url" label="Endpoint URL" type="url" errors={errors} value={input.url} placeholder="https://example.com/webhooks/tidings" required />
        <label class="grow">
          Description
          <input name="description" value={input.description} placeholder="optional, e.g. CRM sync" maxlength={500} />
        </label>
      </div>
      <fieldset class="event-types" aria-invalid={errors.events ? 'true' : undefined}>
        <legend>Events to send</legend>
        {EventType.options.map((type) => (
          <label>
            <input type="checkbox" name="events" value={type} checked={checked.has(type)} />
            <code>{type}</code>
          </label>
        ))}
        {errors.events && <small class="field-error">{errors.events}</small>}
      </fieldset>
      <button type="submit">Add endpoint</button>
    </FormCard>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; input?: CreateInput; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listWebhooks(c.var.deps, membership.orgId, pageQuery(c));
  return render(
    c,
    <TitledPage
      c={c}
      title="Webhooks"
      intro={`Endpoints of ${membership.orgName} that receive signed events (Standard Webhooks). An endpoint that answers 410, or fails for 5 days straight, is disabled automatically and shown here with the reason.`}
    >
      <ForManagers c={c} readerNote="You can see this organization's endpoints; owners and operators manage them.">
        <CreateForm c={c} errors={options.errors ?? {}} input={options.input ?? {}} />
      </ForManagers>
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No webhook endpoints yet', hint: <p>Add one to hear about deliveries, bounces and more as they happen.</p> }}
        olderLabel="Older endpoints"
      >
        <WebhooksTable webhooks={page.data} />
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

// Times on these pages are UTC, so the replay form's `datetime-local` value is read as UTC too.
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

function detailPage(c: Env, webhook: WebhookDetail) {
  const reveal = takeReveal(c, `${BASE}/${webhook.id}`);
  const why = whyDisabled(webhook);
  return render(
    c,
    <DetailPage
      c={c}
      title={webhook.url}
      isTitleLong
      back={{ href: BASE, label: 'Webhooks' }}
      subtitle={
        <>
          <WebhookBadge webhook={webhook} /> {webhook.description}
        </>
      }
    >
      {reveal?.id === webhook.id && <SecretCard reveal={reveal} />}
      {why && (
        <p class={webhook.disabledReason === 'manual' ? 'form-note' : 'form-error'} role="status" id="disabled-reason">
          {why} Nothing is delivered to it until it is enabled again{webhook.disabledReason === 'manual' ? '' : '; fix the endpoint first'}.
        </p>
      )}
      {canManage(c.var.signedIn) && <DetailActions c={c} webhook={webhook} />}
      {canManage(c.var.signedIn) && webhook.enabled && <ReplayForm c={c} webhook={webhook} />}
      <Facts
        class="facts card"
        facts={[
          ['Events', webhook.events.map((type) => <code class="chip">{type}</code>)],
          ['Failing since', <Time at={webhook.failingSince} empty="Not failing" />],
          [
            'Previous secret',
            webhook.previousSecretExpiresAt && (
              <>
                signs too, until <Time at={webhook.previousSecretExpiresAt} />
              </>
            ),
          ],
          ['Created', <Time at={webhook.createdAt} />],
          ['ID', <code>{webhook.id}</code>],
        ]}
      />
      <h2 class="section-heading">Recent deliveries</h2>
      <DeliveriesTable deliveries={webhook.recentEvents} />
    </DetailPage>,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody({ all: true });
  const input: CreateInput = { url: String(form.url ?? ''), description: String(form.description ?? ''), events: asList(form.events) };
  const parsed = CreateWebhookBody.safeParse({ url: input.url, events: input.events, description: input.description || undefined });
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? 'form')] ??= issue.path[0] === 'events' ? 'Choose at least one event type.' : issue.message;
    return listPage(c, { errors, input, status: 400 });
  }
  try {
    // live, or test in an organization made for testing (whose messages are all test ones)
    const created = await createWebhook(c.var.deps, orgOf(c), parsed.data, await organizationMode(c.var.deps, orgOf(c)));
    return showOnceAt(c, `${BASE}/${created.id}`, { id: created.id, secret: created.secret, kind: 'created' });
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, ['url', 'events', 'description']), input, status: 400 });
  }
});

routes.get('/:id', async (c) => detailPage(c, await getWebhook(c.var.deps, orgOf(c), c.req.param('id'))));

routes.post('/:id/test', async (c) => {
  const delivery = await sendTestEvent(c.var.deps, orgOf(c), c.req.param('id'));
  return flashRedirect(c, `A webhook.test event is on its way (event ${delivery.eventId}); its delivery is listed below.`, `${BASE}/${delivery.webhookId}`);
});

routes.post('/:id/enable', async (c) => {
  const webhook = await updateWebhook(orgContext(c), c.req.param('id'), { enabled: true });
  return flashRedirect(c, 'The endpoint is enabled again: new events are delivered to it.', `${BASE}/${webhook.id}`);
});

function deliveryPage(c: Env, delivery: WebhookDeliveryDetail) {
  const endpoint = `${BASE}/${delivery.webhookId}`;
  return render(
    c,
    <DetailPage
      c={c}
      title={`Delivery ${delivery.id}`}
      heading={
        <>
          <code>{delivery.eventType}</code> delivery
        </>
      }
      back={{ href: endpoint, label: 'Endpoint' }}
      subtitle={<DeliveryStatus delivery={delivery} />}
    >
      {canManage(c.var.signedIn) && (
        <form method="post" action={`${endpoint}/deliveries/${delivery.id}/resend`} class="actions page-actions">
          <CsrfField c={c} />
          <button type="submit">Resend</button>
        </form>
      )}
      <Facts
        class="facts card"
        facts={[
          ['Event', <code>{delivery.eventId}</code>],
          ['Attempts', delivery.attempts],
          ['Created', <Time at={delivery.createdAt} />],
          ['Next try', <Time at={delivery.nextAttemptAt} empty="None planned" />],
          ['ID', <code>{delivery.id}</code>],
        ]}
      />
      <h2 class="section-heading">Payload</h2>
      {delivery.payload ? <pre class="payload card">{JSON.stringify(delivery.payload, null, 2)}</pre> : <p class="muted">The event is no longer stored.</p>}
      <h2 class="section-heading">Attempts</h2>
      <AttemptsTable attempts={delivery.attemptLog} />
    </DetailPage>,
  );
}

routes.get('/:id/deliveries/:deliveryId', async (c) => deliveryPage(c, await getWebhookDelivery(orgContext(c), c.req.param('id'), c.req.param('deliveryId'))));

routes.post('/:id/deliveries/:deliveryId/resend', async (c) => {
  const delivery = await retryWebhookDelivery(orgContext(c), c.req.param('id'), c.req.param('deliveryId'));
  return flashRedirect(c, 'The delivery is on its way again; reload to see the new attempt.', `${BASE}/${delivery.webhookId}/deliveries/${delivery.id}`);
});

routes.post('/:id/replay', async (c) => {
  const form = await c.req.parseBody();
  const since = String(form.since ?? '');
  const body = ReplayWebhookBody.safeParse({ since: DATETIME_LOCAL.test(since) ? `${since}:00Z` : since, status: form.onlyFailed ? 'failed' : undefined });
  if (!body.success) throw new AppError('BAD_REQUEST', 'Replay since: must be a date and time');
  const { count } = await replayWebhookDeliveries(orgContext(c), c.req.param('id'), body.data);
  return flashRedirect(c, `${count} ${count === 1 ? 'delivery is' : 'deliveries are'} on their way again.`, `${BASE}/${c.req.param('id')}`);
});

const loadWebhook = (c: Env) => getWebhook(c.var.deps, orgOf(c), c.req.param('id')!);

confirmedAction(routes, 'rotate', {
  load: loadWebhook,
  ask: (webhook) => ({
    title: 'Rotate the signing secret',
    subtitle: <code>{webhook.url}</code>,
    submitLabel: 'Rotate secret',
    back: { href: `${BASE}/${webhook.id}`, label: 'Endpoint' },
    children: (
      <p>A new secret signs every delivery from now on and is shown once. For 24 hours deliveries carry a signature with the old secret too, while you update the receiver.</p>
    ),
  }),
  act: async (c, webhook) => {
    const rotated = await rotateWebhookSecret(c.var.deps, orgOf(c), webhook.id);
    return showOnceAt(c, `${BASE}/${rotated.id}`, { id: rotated.id, secret: rotated.secret, kind: 'rotated' });
  },
});

confirmedAction(routes, 'disable', {
  load: loadWebhook,
  ask: (webhook) => ({
    title: 'Disable this endpoint',
    subtitle: <code>{webhook.url}</code>,
    submitLabel: 'Disable endpoint',
    isDangerous: true,
    back: { href: `${BASE}/${webhook.id}`, label: 'Endpoint' },
    children: (
      <p>
        Nothing is delivered to it again, including deliveries still being retried. This is what <code>webhook.delete</code> does in the API: the endpoint and its delivery history
        stay listed, and it can be enabled again later.
      </p>
    ),
  }),
  act: async (c, webhook) => {
    await disableWebhook(c.var.deps, orgOf(c), webhook.id);
    return flashRedirect(c, 'The endpoint is disabled: nothing is delivered to it.', `${BASE}/${webhook.id}`);
  },
});

/** Webhooks: endpoints, why one is disabled, recent deliveries; add and rotate (secret shown once), test, enable, disable. */
export const webhooksPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Webhooks', href: BASE, section: 'main' },
  routes,
};
