import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import { renderContent, RenderBudgetExceeded, type TemplateContent } from './template-engine.ts';

/** One template to render with its variables. */
export type RenderJob = { content: TemplateContent; variables: Record<string, unknown> };
/** What the pool hands a worker thread: every job of one request and the time they may take together. */
export type RenderTask = { taskId: string; jobs: RenderJob[]; budgetMs: number };
/** Each job's rendered parts, or the 4xx it is (a missing variable...). Plain data: it crosses a thread boundary. */
export type RenderOutcome = { parts: Required<TemplateContent> } | { error: { code: AppError['code']; message: string } };
/** Every outcome, or the index of the job that was rendering when the budget ran out. */
export type RenderTaskResult = { outcomes: RenderOutcome[] } | { exceededAt: number };

/** Sent to the pool when a task starts running (not when it is queued), so its hard stop counts from then. */
export type RenderTaskStarted = { renderTaskStarted: string };

/**
 * Renders a request's jobs in order, on a worker thread, within `budgetMs` for all of them together: each render gets
 * what is left of the budget as Liquid's own render limit, so a hostile loop stops by itself in time.
 * @example renderTask({ taskId: 't1', jobs: [{ content: { body: 'Hi {{ n }}' }, variables: { n: 'Ada' } }], budgetMs: 250 })
 * // { outcomes: [{ parts: { subject: null, html: null, text: null, body: 'Hi Ada' } }] }
 */
export default function renderTask(task: RenderTask): RenderTaskResult {
  parentPort?.postMessage({ renderTaskStarted: task.taskId } satisfies RenderTaskStarted);
  const deadline = performance.now() + task.budgetMs;
  const outcomes: RenderOutcome[] = [];
  for (const [index, job] of task.jobs.entries()) {
    const remainingMs = deadline - performance.now();
    if (remainingMs <= 0) return { exceededAt: index };
    try {
      outcomes.push({ parts: renderContent(job.content, job.variables, { renderLimitMs: remainingMs }) });
    } catch (error) {
      if (error instanceof RenderBudgetExceeded) return { exceededAt: index };
      if (!(error instanceof AppError)) throw error;
      outcomes.push({ error: { code: error.code, message: error.message } });
    }
  }
  return { outcomes };
}
