import { readUnsubscribeToken, unsubscribeToken } from '../broadcasts/unsubscribe-token.ts';
import { contactTopicsOf, isInTopic } from './contact-topics.ts';

const optIn = { id: 'top_in', defaultSubscription: 'opt_in' };
const optOut = { id: 'top_out', defaultSubscription: 'opt_out' };

describe('topic membership', () => {
  it('a contact that never chose is in an opt-out topic and not in an opt-in one', () => {
    expect([isInTopic({}, optIn), isInTopic({}, optOut), isInTopic(null, optOut)]).toEqual([false, true, true]);
  });

  it('a choice overrides the default either way', () => {
    expect([isInTopic({ top_in: true }, optIn), isInTopic({ top_out: false }, optOut), isInTopic({ top_in: false }, optOut)]).toEqual([true, false, true]);
  });

  it('shows stored choices as a list and ignores anything that is not a boolean', () => {
    expect(contactTopicsOf({ top_a: true, top_b: false, top_c: 'yes' })).toEqual([
      { topicId: 'top_a', subscribed: true },
      { topicId: 'top_b', subscribed: false },
    ]);
    expect([contactTopicsOf(null), contactTopicsOf([])]).toEqual([[], []]);
  });
});

describe('link tokens by purpose', () => {
  const secret = 'a-secret-of-at-least-thirty-two-chars!';
  const subject = { contactId: 'con_1', broadcastId: 'brd_1' };

  it('a preference token opens only the preference page, an unsubscribe token only the unsubscribe link', () => {
    const preferences = unsubscribeToken(secret, subject, 'preferences');
    const unsubscribe = unsubscribeToken(secret, subject);
    expect(preferences).not.toBe(unsubscribe);
    expect(readUnsubscribeToken(secret, preferences, 'preferences')).toEqual(subject);
    expect(readUnsubscribeToken(secret, preferences)).toBeNull();
    expect(readUnsubscribeToken(secret, unsubscribe, 'preferences')).toBeNull();
    expect(readUnsubscribeToken(secret, unsubscribe)).toEqual(subject);
  });
});
