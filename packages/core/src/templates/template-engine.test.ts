import { Liquid } from 'liquidjs';
import { AppError } from '../errors.ts';
import { renderContent, RenderBudgetExceeded, templateVariables } from './template-engine.ts';

const render = (content: Parameters<typeof renderContent>[0], variables: Record<string, unknown>) => renderContent(content, variables, { renderLimitMs: 1_000 });

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

  it("answers what Liquid's own analysis answers", () => {
    const liquid = new Liquid({ strictVariables: true, lenientIf: true, ownPropertyOnly: true, templates: {} });
    const sources = [
      '{% assign g = "x" %}{{ g }} {{ f }} {% for i in o.items %}{{ i.name }}{{ i[k] }}{% endfor %}{{ a[b.c] | plus: d }}{% if v and w.x %}{% endif %}',
      '{% capture c %}{{ z }}{% endcapture %}{{ c }}{% for x in (lo..hi) %}{{ forloop.index }}{{ x }}{% endfor %}{% case q %}{% when r %}{{ s | default: t }}{% endcase %}',
      '{% tablerow p in ps cols: cc %}{{ p }}{% endtablerow %}{% increment n %}{{ n }}{% unless m %}{% endunless %}{% liquid\n assign y = yy\n echo y | append: ee\n %}{% cycle c1, c2 %}{{ x }}{{ p }}{{ h | replace: k1: k2 }}',
    ];
    for (const source of sources) expect(templateVariables({ text: source })).toEqual(liquid.globalVariablesSync(source));
  });

  it('takes time linear in the template (Liquid scans from the start for every variable it finds)', () => {
    const timeOf = (outputs: number) => {
      const source = '{{ a }}'.repeat(outputs);
      const started = performance.now();
      templateVariables({ html: source }, { maxTags: outputs });
      return performance.now() - started;
    };
    timeOf(1_000); // compiled and warm
    // the fastest of seven runs of each size, so a GC pause or a busy neighbour on a shared machine does not count
    // (three were not enough with two suites running at once: one run measured 88)
    const fastest = (outputs: number) => Math.min(...Array.from({ length: 7 }, () => timeOf(outputs)));
    const small = fastest(1_000);
    const large = fastest(16_000);
    // 16 times the outputs: about 16 times the time when linear, 256 when quadratic (100 measured before the fix, 6
    // after); the bound is their geometric middle, as a loaded machine measured up to 42 with single runs
    expect(large / small).toBeLessThan(64);
  });

  it('a part with more tags and outputs than the cap is refused before it is parsed, naming the part', () => {
    expect(() => templateVariables({ subject: 'ok', html: '{% if a %}{% endif %}'.repeat(2_000) }, { maxTags: 3_999 })).toThrow(
      new AppError('BAD_REQUEST', 'html: the template has 4000 tags and outputs; a template may have at most 3999.'),
    );
    expect(templateVariables({ html: '{% if a %}{% endif %}'.repeat(2_000) }, { maxTags: 4_000 })).toEqual(['a']);
  });
});

describe('renderContent', () => {
  const variables = { name: `<script>alert("x")</script> & 'co'`, n: 3 };

  it('escapes HTML in html only (known answers)', () => {
    expect(render({ subject: '{{ name }}', html: '<p>{{ name }}</p>', text: '{{ name }}', body: null }, variables)).toEqual({
      subject: `<script>alert("x")</script> & 'co'`,
      html: '<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
      text: `<script>alert("x")</script> & 'co'`,
      body: null,
    });
    expect(render({ body: '{{ name }} x{{ n }}' }, variables).body).toBe(`<script>alert("x")</script> & 'co' x3`);
  });

  it('escapes once when the template escapes as well: `| escape` (or escape_once, xml_escape) last in html is not escaped again', () => {
    const html = '<p>{{ name | escape }}|{{ name | escape_once }}|{{ name | xml_escape }}|{{ name }}</p>';
    const once = '&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;co&#39;';
    expect(render({ html }, variables).html).toBe(`<p>${once}|${once}|${once}|${once}</p>`);
    // elsewhere nothing is escaped by the engine: the filter's one escape is all there is
    expect(render({ text: '{{ name | escape }}' }, { name: 'A & B' }).text).toBe('A &amp; B');
    // a filter after the escape makes plain text again, which html escapes as always
    expect(render({ html: '{{ name | escape | append: "&" }}' }, { name: 'A & B' }).html).toBe('A &amp;amp; B&amp;');
  });

  it('a missing variable, top-level or nested, is BAD_REQUEST naming it; an if on a missing one is just false', () => {
    expect(() => render({ text: 'Hi {{ who }}' }, {})).toThrow("variables.who: missing; the template's text uses it");
    expect(() => render({ html: '{{ user.email }}' }, { user: { name: 'x' } })).toThrow("variables.user.email: missing; the template's html uses it");
    expect(render({ body: '{% if vip %}VIP {% endif %}hi' }, {}).body).toBe('hi');
  });

  it('stops a render that passes its time limit, all parts together', () => {
    const loops = '{% for i in (1..2000) %}{% for j in (1..2000) %}{% endfor %}{% endfor %}';
    const started = performance.now();
    expect(() => renderContent({ subject: loops, text: loops }, {}, { renderLimitMs: 50 })).toThrow(RenderBudgetExceeded);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses rendered text Postgres cannot store', () => {
    expect(() => render({ body: 'x{{ v }}' }, { v: 'a\u0000' })).toThrow('body: the rendered template must not contain the NUL character');
    expect(() => render({ text: 'x{{ v }}' }, { v: '\ud800' })).toThrow('text: the rendered template must not contain a lone surrogate');
  });

  it('never reads inherited properties of the values given', () => {
    expect(() => render({ text: '{{ user.constructor }}' }, { user: {} })).toThrow(/variables\.user\.constructor: missing/);
  });
});
