import { storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

export const TopicDefaultSubscription = z.enum(['opt_in', 'opt_out']).openapi({
  description: '`opt_in`: a contact is in the topic only once it subscribes. `opt_out`: every contact is in it until it unsubscribes.',
});
export type TopicDefaultSubscription = z.infer<typeof TopicDefaultSubscription>;

export const TopicVisibility = z.enum(['public', 'private']).openapi({
  description: '`public` topics are listed on the preference page; `private` ones are not (a contact changes them only through the API).',
});
export type TopicVisibility = z.infer<typeof TopicVisibility>;

const topicExample = {
  id: 'top_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'Product news',
  description: 'What we shipped this month',
  defaultSubscription: 'opt_out',
  visibility: 'public',
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
} as const;

export const Topic = z
  .object({
    id: z.string().openapi({ example: 'top_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    description: z.string().nullable(),
    defaultSubscription: TopicDefaultSubscription,
    visibility: TopicVisibility,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Topic', { example: topicExample });
export type Topic = z.infer<typeof Topic>;

const topicName = storableText().trim().min(1).max(100);
const topicDescription = storableText().trim().max(500);

export const CreateTopicBody = z
  .strictObject({
    name: topicName,
    description: topicDescription.nullable().optional(),
    defaultSubscription: TopicDefaultSubscription,
    visibility: TopicVisibility.default('public'),
  })
  .openapi('CreateTopicBody', { example: { name: 'Product news', description: 'What we shipped this month', defaultSubscription: 'opt_out' } });
export type CreateTopicBody = z.infer<typeof CreateTopicBody>;

export const UpdateTopicBody = z
  .strictObject({
    name: topicName.optional(),
    description: topicDescription.nullable().optional(),
    defaultSubscription: TopicDefaultSubscription.optional(),
    visibility: TopicVisibility.optional(),
  })
  .refine((t) => Object.keys(t).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateTopicBody', { example: { visibility: 'private' } });
export type UpdateTopicBody = z.infer<typeof UpdateTopicBody>;

/** At most this many topic choices in one contact write. */
export const MAX_CONTACT_TOPICS = 100;

export const ContactTopic = z
  .strictObject({
    topicId: storableText().min(1).max(64),
    subscribed: z.boolean(),
  })
  .openapi('ContactTopic', { description: 'A choice the contact made about a topic.', example: { topicId: 'top_01JD8Z5Q9X4N7W2M3K6P0R1T5V', subscribed: true } });
export type ContactTopic = z.infer<typeof ContactTopic>;

/** Topic choices in a contact write: each names a topic of the organization once. */
export const ContactTopicChoices = z
  .array(ContactTopic)
  .max(MAX_CONTACT_TOPICS)
  .refine((choices) => new Set(choices.map((c) => c.topicId)).size === choices.length, { message: 'name each topic once' })
  .openapi({ description: `Up to ${MAX_CONTACT_TOPICS} choices, merged by topic into the contact's: a topic not named keeps its choice (or its default).` });
