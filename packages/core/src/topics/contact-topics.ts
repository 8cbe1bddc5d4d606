import type { ContactTopic } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { selectOrgTopicIds } from './topic.store.ts';

/** A contact's stored choices: `{ "<topicId>": subscribed }`. */
export type TopicChoices = Record<string, boolean>;

/**
 * A contact's stored choices as the API shows them.
 * @example contactTopicsOf({ top_1: true }) // [{ topicId: 'top_1', subscribed: true }]
 */
export function contactTopicsOf(stored: unknown): ContactTopic[] {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return [];
  return Object.entries(stored as Record<string, unknown>).flatMap(([topicId, subscribed]) => (typeof subscribed === 'boolean' ? [{ topicId, subscribed }] : []));
}

/**
 * The topic ids among `ids` that are not topics of the organization (one query for any number).
 * @example await unknownTopicIds(deps, orgId, ['top_1', 'top_other_org']) // ['top_other_org']
 */
export async function unknownTopicIds({ db }: Pick<Deps, 'db'>, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await selectOrgTopicIds(db, orgId, [...new Set(ids)]);
  const known = new Set(found.map((t) => t.id));
  return ids.filter((id) => !known.has(id));
}

/**
 * Choices from a request, checked against the organization's topics: NOT_FOUND naming the first topic that is not
 * one of them (another organization's included), else the choices as stored.
 * @example const merge = await requireTopicChoices(deps, orgId, input.topics) // { top_1: false }
 */
export async function requireTopicChoices(deps: Pick<Deps, 'db'>, orgId: string, choices: ContactTopic[]): Promise<TopicChoices> {
  const [unknown] = await unknownTopicIds(
    deps,
    orgId,
    choices.map((c) => c.topicId),
  );
  if (unknown !== undefined) throw new AppError('NOT_FOUND', `topics: topic ${unknown.slice(0, 64)} not found`);
  return Object.fromEntries(choices.map((c) => [c.topicId, c.subscribed]));
}

/**
 * Whether a contact with these stored choices is in the topic.
 * @example isInTopic({ top_1: false }, { id: 'top_1', defaultSubscription: 'opt_out' }) // false
 */
export function isInTopic(stored: unknown, topic: { id: string; defaultSubscription: string }): boolean {
  const choice = (stored as TopicChoices | null)?.[topic.id];
  return typeof choice === 'boolean' ? choice : topic.defaultSubscription === 'opt_out';
}
