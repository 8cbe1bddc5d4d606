import { CreateTopicBody, UpdateTopicBody, type Topic } from '@tidings/contracts';
import { createTopic, deleteTopic, getTopic, listTopics, updateTopic } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Field, FormCard, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { PagedList, Table } from '../views/list.tsx';
import { DetailPage, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/topics';

type Env = Context<DashEnv>;
type TopicInput = { name?: string; description?: string; defaultSubscription?: string; visibility?: string };

const DEFAULTS: Record<Topic['defaultSubscription'], string> = {
  opt_in: 'Opt-in: only contacts who subscribe',
  opt_out: 'Opt-out: every contact until they unsubscribe',
};
const VISIBILITIES: Record<Topic['visibility'], string> = {
  public: 'Public: on the preference page',
  private: 'Private: changed only through the API or here',
};

function Select({ name, label, options, value }: { name: string; label: string; options: Record<string, string>; value?: string }) {
  return (
    <label>
      {label}
      <select name={name}>
        {Object.entries(options).map(([key, text]) => (
          <option value={key} selected={value === key}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The fields of the create and edit forms. */
function TopicFields({ errors, input }: { errors: FieldErrors; input: TopicInput }) {
  return (
    <>
      <div class="create-row">
        <Field class="grow" name="name" label="Name" errors={errors} value={input.name} placeholder="e.g. Product news" maxlength={100} required />
        <Select name="defaultSubscription" label="Who is in it" options={DEFAULTS} value={input.defaultSubscription ?? 'opt_in'} />
        <Select name="visibility" label="Visibility" options={VISIBILITIES} value={input.visibility ?? 'public'} />
      </div>
      <Field name="description" label="Description" errors={errors} value={input.description} placeholder="Shown under the name on the preference page" maxlength={500} />
    </>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; input?: TopicInput; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listTopics(c.var.deps, membership.orgId, pageQuery(c));
  return render(
    c,
    <TitledPage
      c={c}
      title="Topics"
      intro={
        <>
          What {membership.orgName}’s contacts can subscribe to one by one. A broadcast to a topic reaches only its members, its unsubscribe link leaves the other topics alone, and
          the preference page lists the public ones.
        </>
      }
    >
      {canManage(c.var.signedIn) && (
        <FormCard c={c} id="add-topic-title" title="New topic" action={BASE} errors={options.errors ?? {}}>
          <TopicFields errors={options.errors ?? {}} input={options.input ?? {}} />
          <button type="submit">Create topic</button>
        </FormCard>
      )}
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No topics yet', hint: <p>A topic is a kind of message a contact can choose, such as product news or a weekly digest.</p> }}
        olderLabel="Older topics"
      >
        <Table headers={['Name', 'Who is in it', 'Visibility', 'Created']}>
          {page.data.map((topic) => (
            <tr data-topic-id={topic.id}>
              <td class="name">
                <a href={`${BASE}/${topic.id}`}>{topic.name}</a>
              </td>
              <td>{topic.defaultSubscription === 'opt_in' ? 'Opt-in' : 'Opt-out'}</td>
              <td>{topic.visibility === 'public' ? 'Public' : 'Private'}</td>
              <td>
                <Time at={topic.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

function detailPage(c: Env, topic: Topic, options: { errors?: FieldErrors; input?: TopicInput; status?: 200 | 400 } = {}) {
  const input = options.input ?? { name: topic.name, description: topic.description ?? '', defaultSubscription: topic.defaultSubscription, visibility: topic.visibility };
  return render(
    c,
    <DetailPage
      c={c}
      title={topic.name}
      back={{ href: BASE, label: 'Topics' }}
      subtitle={
        <>
          {DEFAULTS[topic.defaultSubscription]} · {VISIBILITIES[topic.visibility]}
        </>
      }
    >
      {canManage(c.var.signedIn) ? (
        <>
          <FormCard c={c} id="edit-topic-title" title="Edit topic" action={`${BASE}/${topic.id}`} errors={options.errors ?? {}}>
            <TopicFields errors={options.errors ?? {}} input={input} />
            <button type="submit">Save changes</button>
          </FormCard>
          <div class="actions page-actions">
            <a href={`${BASE}/${topic.id}/delete`} role="button" class="outline danger-outline small">
              Delete topic…
            </a>
          </div>
        </>
      ) : (
        <section class="card">
          <p>{topic.description ?? 'No description.'}</p>
        </section>
      )}
    </DetailPage>,
    options.status ?? 200,
  );
}

async function readInput(c: Env): Promise<TopicInput> {
  const form = await c.req.parseBody();
  const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  return { name: text('name'), description: text('description'), defaultSubscription: text('defaultSubscription'), visibility: text('visibility') };
}

/** The form as a topic body: an empty description is none. */
const bodyOf = (input: TopicInput) => ({ ...input, description: input.description?.trim() ? input.description : null });

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const input = await readInput(c);
  const parsed = CreateTopicBody.safeParse(bodyOf(input));
  if (!parsed.success) return listPage(c, { errors: zodFieldErrors(parsed.error.issues), input, status: 400 });
  const topic = await createTopic(c.var.deps, orgOf(c), parsed.data);
  return flashRedirect(c, `The topic ${topic.name} is created.`, BASE);
});

routes.get('/:id', async (c) => detailPage(c, await getTopic(c.var.deps, orgOf(c), c.req.param('id'))));

routes.post('/:id', async (c) => {
  const topic = await getTopic(c.var.deps, orgOf(c), c.req.param('id'));
  const input = await readInput(c);
  const parsed = UpdateTopicBody.safeParse(bodyOf(input));
  if (!parsed.success) return detailPage(c, topic, { errors: zodFieldErrors(parsed.error.issues), input, status: 400 });
  const updated = await updateTopic(c.var.deps, orgOf(c), topic.id, parsed.data);
  return flashRedirect(c, `The topic ${updated.name} is saved.`, `${BASE}/${updated.id}`);
});

confirmedAction(routes, 'delete', {
  load: (c) => getTopic(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (topic) => ({
    title: `Delete the topic ${topic.name}`,
    subtitle: DEFAULTS[topic.defaultSubscription],
    submitLabel: 'Delete topic',
    isDangerous: true,
    back: { href: `${BASE}/${topic.id}`, label: topic.name },
    children: <p>The contacts’ choices about it go with it. Broadcasts already sent to it keep their history; one not started yet is canceled when it would start.</p>,
  }),
  act: async (c, topic) => {
    await deleteTopic(c.var.deps, orgOf(c), topic.id);
    return flashRedirect(c, `The topic ${topic.name} is deleted.`, BASE);
  },
});

/** Topics: list and create, edit, delete after asking; through the core functions. */
export const topicsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Topics', href: BASE, section: 'main' },
  routes,
};
