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
      outcomes: [{ parts: { subject: 'Hi Ada', html: null, text: 'A Ada', body: null } }, { parts: { subject: 'Hi Gus', html: null, text: 'A Gus', body: null } }],
    });
    // same subject and text, other parts: a cache keyed on fewer parts would answer the first template
    expect(renderTask(task([{ subject: 'Hi {{ n }}', text: 'A {{ n }}', html: '<b>{{ n }}</b>' }], [{ n: '<Fay>' }]))).toEqual({
      outcomes: [{ parts: { subject: 'Hi <Fay>', html: '<b>&lt;Fay&gt;</b>', text: 'A <Fay>', body: null } }],
    });
    expect(renderTask(task([{ subject: 'Hi {{ n }}', text: null, body: 'A {{ n }}' }], [{ n: 'Ada' }]))).toEqual({
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
