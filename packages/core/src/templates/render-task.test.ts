import renderTask, { type RenderTask } from './render-task.ts';

const task = (contents: RenderTask['contents'], variables: Record<string, unknown>[]): RenderTask => ({
  taskId: 't',
  contents,
  jobs: variables.map((v) => ({ content: 0, variables: v })),
  budgetMs: 5_000,
});

describe('renderTask keeps parsed templates between tasks', () => {
  it('a template differing in one part only is parsed on its own, never rendered as the one parsed before', () => {
    const first = renderTask(task([{ subject: 'Hi {{ n }}', text: 'A {{ n }}' }], [{ n: 'Ada' }, { n: 'Gus' }]));
    expect(first).toEqual({
      spentMs: expect.any(Number),
      outcomes: [{ parts: { subject: 'Hi Ada', html: null, text: 'A Ada', body: null } }, { parts: { subject: 'Hi Gus', html: null, text: 'A Gus', body: null } }],
    });
    // same subject and text, other parts: a cache keyed on fewer parts would answer the first template
    expect(renderTask(task([{ subject: 'Hi {{ n }}', text: 'A {{ n }}', html: '<b>{{ n }}</b>' }], [{ n: '<Fay>' }]))).toEqual({
      spentMs: expect.any(Number),
      outcomes: [{ parts: { subject: 'Hi <Fay>', html: '<b>&lt;Fay&gt;</b>', text: 'A <Fay>', body: null } }],
    });
    expect(renderTask(task([{ subject: 'Hi {{ n }}', text: null, body: 'A {{ n }}' }], [{ n: 'Ada' }]))).toEqual({
      spentMs: expect.any(Number),
      outcomes: [{ parts: { subject: 'Hi Ada', html: null, text: null, body: 'A Ada' } }],
    });
  });

  it('a template that does not parse stays each job’s error in every task (it is not kept)', () => {
    for (let i = 0; i < 2; i++) {
      const result = renderTask(task([{ body: 'Hi {{ n ' }], [{ n: 'Ada' }, { n: 'Gus' }]));
      expect('outcomes' in result && result.outcomes.map((o) => ('error' in o ? o.error.code : 'ok'))).toEqual(['BAD_REQUEST', 'BAD_REQUEST']);
    }
  });
});

describe('renderTask counts parsing in the budget', () => {
  it('a template whose parse alone outlasts the budget is refused, once the thread is warm', () => {
    renderTask(task([{ body: 'warm {{ n }}' }], [{ n: 1 }])); // the thread's first parse (Liquid's own code) is not counted
    // thousands of outputs to parse and a branch that renders none of them
    const costly = { html: `{% if false %}${'<p>{{ x }}</p>'.repeat(4_000)}{% endif %}done` };
    expect(renderTask({ ...task([costly], [{}]), budgetMs: 1 })).toEqual({ exceededAt: 0 });
  });

  it('a task past its turn answers the renders done and where to go on, with the CPU time spent', () => {
    const slow = { body: '{% for i in (1..3000) %}{{ i }}{% endfor %}' };
    const result = renderTask({
      ...task(
        [slow],
        Array.from({ length: 50 }, () => ({})),
      ),
      turnMs: 5,
    });
    expect(result).toMatchObject({ yieldedAt: expect.any(Number), spentMs: expect.any(Number) });
    if (!('yieldedAt' in result)) throw new Error('not yielded');
    expect(result.yieldedAt).toBeGreaterThan(0);
    expect(result.yieldedAt).toBeLessThan(50);
    expect(result.outcomes).toHaveLength(result.yieldedAt!);
  });
});
