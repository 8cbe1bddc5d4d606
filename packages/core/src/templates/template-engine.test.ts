import { AppError } from '../errors.ts';
import { renderContent, templateVariables } from './template-engine.ts';

describe('templateVariables', () => {
  it('lists the top-level names in order of first use, leaving out loop and assigned names', () => {
    expect(
      templateVariables({
        subject: 'Hi {{ firstName }}',
        html: '{% assign greeting = "Hello" %}{{ greeting }} {{ firstName }} {% for item in order.items %}{{ item.name }}{% endfor %}',
        text: '{% if vip %}{{ code | upcase }}{% endif %}',
      }),
    ).toEqual(['firstName', 'order', 'vip', 'code']);
  });

  it('a template that does not parse is BAD_REQUEST naming the part', () => {
    let error: unknown;
    try {
      templateVariables({ subject: 'ok', text: 'Hi {{ name' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^text: not a valid template: output "\{\{ name" not closed/) });
    expect(() => templateVariables({ html: '{% if x %}never closed' })).toThrow(/^html: not a valid template/);
  });
});

describe('renderContent', () => {
  const variables = { name: `<script>alert("x")</script> & 'co'`, n: 3 };

  it('escapes HTML in html only (known answers)', () => {
    expect(renderContent({ subject: '{{ name }}', html: '<p>{{ name }}</p>', text: '{{ name }}', body: null }, variables)).toEqual({
      subject: `<script>alert("x")</script> & 'co'`,
      html: '<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
      text: `<script>alert("x")</script> & 'co'`,
      body: null,
    });
    expect(renderContent({ body: '{{ name }} x{{ n }}' }, variables).body).toBe(`<script>alert("x")</script> & 'co' x3`);
  });

  it('a missing variable, top-level or nested, is BAD_REQUEST naming it; an if on a missing one is just false', () => {
    expect(() => renderContent({ text: 'Hi {{ who }}' }, {})).toThrow("variables.who: missing; the template's text uses it");
    expect(() => renderContent({ html: '{{ user.email }}' }, { user: { name: 'x' } })).toThrow("variables.user.email: missing; the template's html uses it");
    expect(renderContent({ body: '{% if vip %}VIP {% endif %}hi' }, {}).body).toBe('hi');
  });

  it('never reads inherited properties of the values given', () => {
    expect(() => renderContent({ text: '{{ user.constructor }}' }, { user: {} })).toThrow(/variables\.user\.constructor: missing/);
  });
});
