import { smsKeywordOf } from './sms-keywords.ts';

describe('smsKeywordOf', () => {
  it.each([
    ['STOP', 'stop'],
    ['stop', 'stop'],
    ['  Stop\n', 'stop'],
    ['stopall', 'stop'],
    ['Unsubscribe', 'stop'],
    ['CANCEL', 'stop'],
    ['end', 'stop'],
    ['quit', 'stop'],
    ['START', 'start'],
    ['unstop', 'start'],
    ['Yes', 'start'],
    ['HELP', 'help'],
    ['info', 'help'],
  ])('reads %j as %s', (body, keyword) => {
    expect(smsKeywordOf(body)).toBe(keyword);
  });

  it.each(['stop please', 'STOP!', 'S TOP', '', 'hello', 'helpful'])('reads %j as no keyword', (body) => {
    expect(smsKeywordOf(body)).toBeNull();
  });
});
