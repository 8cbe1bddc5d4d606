import { defineOperation, json } from '../operation.ts';
import { CreateTopicBody, idParam, ListQuery, listOf, Topic, UpdateTopicBody } from '../schemas.ts';

const tags = ['Topics'];
const TopicIdParam = idParam('top');

/** The five topic operations: subscription categories that broadcasts target and the preference page offers. */
export const topicOperations = {
  create: defineOperation({
    operationId: 'topic.create',
    method: 'post',
    path: '/topics',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Create a topic',
    description:
      'A subscription category. `opt_in`: contacts are in it once they subscribe; `opt_out`: every contact is in it until it unsubscribes. `public` topics are listed on the preference page.',
    request: { body: { required: true, ...json(CreateTopicBody) } },
    responses: { 201: { description: 'The new topic', ...json(Topic) } },
  }),
  list: defineOperation({
    operationId: 'topic.list',
    method: 'get',
    path: '/topics',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List topics',
    description: 'Newest first.',
    request: { query: ListQuery },
    responses: { 200: { description: 'A page of topics', ...json(listOf(Topic, 'TopicList')) } },
  }),
  get: defineOperation({
    operationId: 'topic.get',
    method: 'get',
    path: '/topics/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Get a topic',
    description: 'The topic.',
    request: { params: TopicIdParam },
    responses: { 200: { description: 'The topic', ...json(Topic) } },
  }),
  update: defineOperation({
    operationId: 'topic.update',
    method: 'patch',
    path: '/topics/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Update a topic',
    description: 'Any of name, description, defaultSubscription and visibility. A new default applies to every contact that never chose.',
    request: { params: TopicIdParam, body: { required: true, ...json(UpdateTopicBody) } },
    responses: { 200: { description: 'The updated topic', ...json(Topic) } },
  }),
  remove: defineOperation({
    operationId: 'topic.delete',
    method: 'delete',
    path: '/topics/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Delete a topic',
    description: "Removes the topic and the contacts' choices about it. Broadcasts that named it keep their `topicId`, counts and messages.",
    request: { params: TopicIdParam },
    responses: { 204: { description: 'Deleted' } },
  }),
};
