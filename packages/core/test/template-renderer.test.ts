import { createTemplateRenderer } from '../src/templates/template-renderer.ts';

// The pool keeps no thread: the first render of a process (or the first after a minute idle) starts one.
const HOSTILE = 'Hi {% for i in (1..1800) %}{% for j in (1..1800) %}{% endfor %}{% endfor %}';

describe('template renderer started on first use', () => {
  const renderer = createTemplateRenderer({ budgetMs: 250, threads: 1 });
  afterAll(() => renderer.close());

  it('renders from a cold pool, and still stops a render that outruns its budget', async () => {
    const [rendered] = await renderer.render([{ templateId: 'tpl_cold', content: { body: 'Hi {{ name }}' }, variables: { name: 'Ada' } }]);
    expect(rendered).toEqual({ subject: null, html: null, text: null, body: 'Hi Ada' });

    await renderer.close(); // cold again: the thread's start must not be spent from the budget, nor lift it
    const started = performance.now();
    await expect(renderer.render([{ templateId: 'tpl_loops', content: { body: HOSTILE }, variables: {} }])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('tpl_loops'),
    });
    expect(performance.now() - started).toBeLessThan(30_000);
    const [again] = await renderer.render([{ templateId: 'tpl_cold', content: { body: 'Bye {{ name }}' }, variables: { name: 'Ada' } }]);
    expect(again).toEqual({ subject: null, html: null, text: null, body: 'Bye Ada' });
  }, 60_000);
});
