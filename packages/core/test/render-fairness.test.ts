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

describe('a turn of a render thread is bounded in wall-clock time', () => {
  const renderer = createTemplateRenderer({ budgetMs: 5_000, threads: 1, turnMs: 50 });
  afterAll(() => renderer.close());

  it("one organization's long task (a broadcast chunk) hands the thread back between renders, so another's send goes in between", async () => {
    await renderer.render([{ templateId: 'tpl_warm', content: EXPENSIVE, variables: {} }]); // the thread started and warm
    const finished: string[] = [];
    // one task of 40 renders of a few ms each: far longer than one turn
    const chunk = renderer
      .render(
        Array.from({ length: 40 }, () => ({ templateId: 'tpl_a', content: EXPENSIVE, variables: {} })),
        { orgId: 'org_a' },
      )
      .then((r) => {
        finished.push('a');
        return r;
      });
    await new Promise((resolve) => setImmediate(resolve));
    const [rendered] = await renderer.render([{ templateId: 'tpl_b', content: { body: 'Code {{ code }}' }, variables: { code: '42' } }], { orgId: 'org_b' });
    finished.push('b');
    const all = await chunk;
    expect(rendered).toMatchObject({ body: 'Code 42' });
    // every one of A's renders is still answered, in order
    expect(all).toHaveLength(40);
    expect(all.every((r) => 'body' in r && r.body!.startsWith('123'))).toBe(true);
    // a task held its thread to the end: b after a; in turns: b before a is done
    expect(finished).toEqual(['b', 'a']);
  }, 120_000);
});
