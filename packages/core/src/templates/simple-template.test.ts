import { AppError } from '../errors.ts';
import { compileSimpleTemplate } from './simple-template.ts';
import { renderContent, type TemplateContent } from './template-engine.ts';

/** Liquid's answer: the parts, or the error's message. */
function liquid(content: TemplateContent, variables: Record<string, unknown>) {
  try {
    return renderContent(content, variables, { renderLimitMs: 1_000 });
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
}

const contact = (over: Record<string, unknown> = {}) => ({
  id: 'con_1',
  email: 'ada@example.com',
  phone: null,
  firstName: 'Ada',
  lastName: null,
  attributes: { plan: 'pro', n: 7, ratio: 0.5, tags: ['a'], nested: { city: 'Paris' }, flag: true },
  ...over,
});

describe('compileSimpleTemplate', () => {
  const news = {
    subject: 'Hi {{ contact.firstName }}, the {{ month }} news',
    html: '<p>Hello {{ contact.firstName }} {{ contact.lastName }} (#{{ contact.attributes.n }})</p><a href="{{ unsubscribeUrl }}">x</a>',
    text: 'Hello {{- contact.firstName -}} . {{ contact.attributes.nested.city }} {{contact.attributes.ratio}}',
  };

  it.each([
    ['plain values', { month: 'November', unsubscribeUrl: 'https://x/u?a=1&b=2', contact: contact() }],
    ['text html must escape', { month: '<b>"Nov" & \'Dec\'</b>', unsubscribeUrl: 'u', contact: contact({ firstName: '<script>' }) }],
    ['unicode', { month: 'Noël 🎄', unsubscribeUrl: 'u', contact: contact({ firstName: 'Zoë' }) }],
  ])('renders exactly what Liquid renders: %s', (_, variables) => {
    const render = compileSimpleTemplate(news);
    expect(render).not.toBeNull();
    expect(render!(variables)).toEqual(liquid(news, variables));
  });

  it.each([
    ['a missing variable', { unsubscribeUrl: 'u', contact: contact() }],
    ['a missing nested property', { month: 'Nov', unsubscribeUrl: 'u', contact: contact({ attributes: {} }) }],
    ['null on the way', { month: 'Nov', unsubscribeUrl: 'u', contact: contact({ attributes: null }) }],
    ['a boolean', { month: true, unsubscribeUrl: 'u', contact: contact() }],
    ['an array', { month: ['a', 'b'], unsubscribeUrl: 'u', contact: contact() }],
    ['an object', { month: { a: 1 }, unsubscribeUrl: 'u', contact: contact() }],
    ['a NUL character', { month: 'a\u0000b', unsubscribeUrl: 'u', contact: contact() }],
  ])('leaves to Liquid (null) what it does not render the same way: %s', (_, variables) => {
    expect(compileSimpleTemplate(news)!(variables)).toBeNull();
  });

  it.each([
    ['a filter', { subject: 'Hi {{ name | upcase }}' }],
    ['a tag', { subject: '{% if name %}Hi{% endif %}' }],
    ['a literal', { subject: 'Hi {{ "x" }}' }],
    ['a bracketed key', { subject: 'Hi {{ a["b"] }}' }],
    ['an index', { subject: 'Hi {{ a[0] }}' }],
    ['size, first or last', { subject: 'Hi {{ name.size }}' }],
    ['raw html', { html: '{{ name | raw }}' }],
    ['a template that does not parse', { subject: 'Hi {{ name' }],
  ])('is null for a template with %s', (_, content) => {
    expect(compileSimpleTemplate(content)).toBeNull();
  });

  it('renders an SMS body and a template without variables', () => {
    expect(compileSimpleTemplate({ body: 'Code {{ code }}' })!({ code: 1234 })).toEqual({ subject: null, html: null, text: null, body: 'Code 1234' });
    expect(compileSimpleTemplate({ subject: 'Hello', text: '' })!({})).toEqual(liquid({ subject: 'Hello', text: '' }, {}));
  });
});
