import { createTemplateRenderer } from '../src/templates/template-renderer.ts';

// A template that costs a few ms of CPU each render (a loop well within the budget).
const EXPENSIVE = { body: '{% for i in (1..3000) %}{{ i }}{% endfor %}' };

describe('render threads are shared in turn between organizations', () => {
  const renderer = createTemplateRenderer({ budgetMs: 5_000, threads: 1 });
  afterAll(() => renderer.close());

  it("one organization's flood of previews does not hold another's single send behind all of it", async () => {
    await renderer.render([{ templateId: 'tpl_warm', content: { body: 'x' }, variables: {} }]); // the thread started
    const finished: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) =>
      renderer.render([{ templateId: 'tpl_a', content: EXPENSIVE, variables: {} }], { orgId: 'org_a' }).then(() => finished.push(`a${i}`)),
    );
    const send = renderer.render([{ templateId: 'tpl_b', content: { body: 'Code {{ code }}' }, variables: { code: '42' } }], { orgId: 'org_b' });
    const [rendered] = await send;
    finished.push('b');
    await Promise.all(flood);
    expect(rendered).toMatchObject({ body: 'Code 42' });
    // first come first served: b after all eight of org_a's; in turn: after the one already running
    expect(finished.indexOf('b')).toBeLessThanOrEqual(1);
  }, 120_000);
});
