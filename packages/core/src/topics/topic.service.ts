import type { CreateTopicBody, ListQuery, Topic, TopicDefaultSubscription, TopicVisibility, UpdateTopicBody } from '@tidings/contracts';
import type { Topic as TopicRow } from '@tidings/db';
import { auditedChange } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { removeTopicChoices } from '../contacts/contact.store.ts';
import { deleteOrgTopic, findOrgTopic, insertTopic, listTopicsPage, updateOrgTopic } from './topic.store.ts';

/**
 * The API's view of a topic row.
 * @example c.json(toTopic(row), 200)
 */
export function toTopic(row: TopicRow): Topic {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    defaultSubscription: row.defaultSubscription as TopicDefaultSubscription,
    visibility: row.visibility as TopicVisibility,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The organization's topic, or NOT_FOUND (another organization's id included).
 * @example const topic = await findTopic(deps, orgId, input.topicId);
 */
export async function findTopic({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<TopicRow> {
  return foundOr404(await findOrgTopic(db, orgId, id), 'Topic');
}

/**
 * topic.create: 201.
 * @example await createTopic(deps, orgId, { name: 'Product news', defaultSubscription: 'opt_out', visibility: 'public' })
 */
export async function createTopic(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, input: CreateTopicBody): Promise<Topic> {
  const id = newId('top');
  const row = await auditedChange(deps, { orgId, action: 'topic.created', targetId: id }, (tx) =>
    insertTopic(tx, { id, orgId, name: input.name, description: input.description ?? null, defaultSubscription: input.defaultSubscription, visibility: input.visibility }),
  );
  return toTopic(row);
}

/**
 * topic.list: newest first.
 * @example await listTopics(deps, orgId, { limit: 20, offset: 0 })
 */
export async function listTopics({ reads }: Pick<Deps, 'reads'>, orgId: string, query: ListQuery): Promise<Page<Topic>> {
  return paginate(query, (page) => listTopicsPage(reads, orgId, page), toTopic);
}

/**
 * topic.get
 * @example await getTopic(deps, orgId, 'top_...')
 */
export async function getTopic(deps: Pick<Deps, 'db'>, orgId: string, id: string): Promise<Topic> {
  return toTopic(await findTopic(deps, orgId, id));
}

/**
 * topic.update: any of name, description, defaultSubscription, visibility. A new default changes the membership of
 * every contact that never chose, from the next broadcast on.
 * @example await updateTopic(deps, orgId, id, { visibility: 'private' })
 */
export async function updateTopic(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, id: string, input: UpdateTopicBody): Promise<Topic> {
  const row = await auditedChange(deps, { orgId, action: 'topic.updated', targetId: id }, async (tx) => {
    const updated = await updateOrgTopic(tx, orgId, id, {
      name: input.name,
      description: input.description,
      defaultSubscription: input.defaultSubscription,
      visibility: input.visibility,
    });
    return foundOr404(updated, 'Topic'); // throws inside the transaction: no row for a topic that is not there
  });
  return toTopic(row);
}

/**
 * topic.delete: the topic and the contacts' choices about it go, in one transaction. Broadcasts that named it keep
 * its id and their counts and messages (history); one still scheduled is canceled when it would start.
 * @example await deleteTopic(deps, orgId, id);
 */
export async function deleteTopic(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, id: string): Promise<void> {
  await auditedChange(deps, { orgId, action: 'topic.deleted', targetId: id }, async (tx) => {
    const { count } = await deleteOrgTopic(tx, orgId, id);
    if (count === 0) throw new AppError('NOT_FOUND', 'Topic not found');
    await removeTopicChoices(tx, orgId, id);
  });
}
