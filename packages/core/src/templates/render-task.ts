import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import { compileContent, cpuClockMs, RenderBudgetExceeded, type TemplateContent, templateVariables } from './template-engine.ts';

/** One template to render with its variables. */
export type RenderJob = { content: TemplateContent; variables: Record<string, unknown> };
/**
 * What the pool hands a worker thread: every job of one request and the time they may take together. Each distinct
 * template is sent (and parsed) once; a job names its template by index in `contents` (a broadcast chunk renders one
 * template for every contact). `spentMs`: CPU time the request's earlier turns spent already. `turnMs`: wall-clock
 * time after which the task hands its thread back between two jobs (the rest goes on in a later turn).
 */
export type RenderTask = {
  taskId: string;
  contents: TemplateContent[];
  jobs: { content: number; variables: Record<string, unknown> }[];
  budgetMs: number;
  spentMs?: number;
  turnMs?: number;
};
/** Each job's rendered parts, or the 4xx it is (a missing variable...). Plain data: it crosses a thread boundary. */
export type RenderOutcome = { parts: Required<TemplateContent> } | { error: { code: AppError['code']; message: string } };
/**
 * The outcomes of the jobs rendered (all of them, or the first `yieldedAt` when the turn ended first) with the CPU time
 * spent in all, or the index of the job that was rendering when the budget ran out.
 */
export type RenderTaskResult = { outcomes: RenderOutcome[]; spentMs: number; yieldedAt?: number } | { exceededAt: number };

/** Sent to the pool when a task starts running (not when it is queued), so its hard stop counts from then. */
export type RenderTaskStarted = { renderTaskStarted: string };

/** Parsed templates a thread keeps between tasks, by their parts: a broadcast sends one template in every task. */
const COMPILED_KEPT = 32;
const compiledByParts = new Map<string, ReturnType<typeof compileContent>>();

/** The template parsed, from the thread's cache when it parsed the same parts before; throws when it does not parse. */
function compiledOf({ subject, html, text, body }: TemplateContent): ReturnType<typeof compileContent> {
  const key = JSON.stringify([subject ?? null, html ?? null, text ?? null, body ?? null]);
  let render = compiledByParts.get(key);
  if (!render) {
    render = compileContent({ subject, html, text, body });
    if (compiledByParts.size >= COMPILED_KEPT) compiledByParts.delete(compiledByParts.keys().next().value!);
    compiledByParts.set(key, render);
  }
  return render;
}

/**
 * Renders a request's jobs in order, on a worker thread, within `budgetMs` of this thread's CPU time for all of them
 * together (cpuClockMs: a busy machine's wait for a core is not the template's cost): each render gets what is left of
 * the budget as Liquid's own render limit, so a hostile loop stops by itself in time. Parsing a template counts too
 * (a 511 KB template's parse is work like its render), except a thread's first parse, which compiles Liquid's own
 * code. Past `turnMs` of wall-clock time the task stops between two jobs and answers those done (`yieldedAt`): the
 * renderer queues the rest for its organization's next turn, so a long task never holds a thread from the others.
 * @example renderTask({ taskId: 't1', contents: [{ body: 'Hi {{ n }}' }], jobs: [{ content: 0, variables: { n: 'Ada' } }], budgetMs: 250 })
 * // { outcomes: [{ parts: { subject: null, html: null, text: null, body: 'Hi Ada' } }], spentMs: 0.1 }
 */
export default function renderTask(task: RenderTask): RenderTaskResult {
  parentPort?.postMessage({ renderTaskStarted: task.taskId } satisfies RenderTaskStarted);
  const turnEndsAt = Date.now() + (task.turnMs ?? Number.POSITIVE_INFINITY);
  let spentMs = task.spentMs ?? 0;
  const outcomes: RenderOutcome[] = [];
  const compiled = new Map<number, ReturnType<typeof compileContent>>();
  for (const [index, job] of task.jobs.entries()) {
    if (spentMs >= task.budgetMs) return { exceededAt: index };
    if (index > 0 && Date.now() > turnEndsAt) return { outcomes, spentMs, yieldedAt: index };
    // a thread that parsed nothing yet is cold: its first parse is not the template's cost
    let started = compiledByParts.size > 0 ? cpuClockMs() : 0;
    try {
      // looked up on first use; a template that does not parse is each of its jobs' error, and is parsed again for each
      let render = compiled.get(job.content);
      if (!render) {
        render = compiledOf(task.contents[job.content]!);
        compiled.set(job.content, render);
      }
      if (started) {
        spentMs += cpuClockMs() - started;
        if (spentMs >= task.budgetMs) return { exceededAt: index };
      }
      started = cpuClockMs();
      outcomes.push({ parts: render(job.variables, { renderLimitMs: task.budgetMs - spentMs }) });
      spentMs += cpuClockMs() - started;
    } catch (error) {
      if (error instanceof RenderBudgetExceeded) return { exceededAt: index };
      if (started) spentMs += cpuClockMs() - started;
      if (!(error instanceof AppError)) throw error;
      outcomes.push({ error: { code: error.code, message: error.message } });
    }
  }
  return { outcomes, spentMs };
}

/** A template to check and list the variables of, with the cap on its tags. */
export type AnalyzeTask = { content: TemplateContent; maxTags: number };
/** The variables the template uses, or the 400 it is (it does not parse, too many tags). */
export type AnalyzeResult = { variables: string[] } | { error: { code: AppError['code']; message: string } };

/**
 * Parses a template and lists its variables on a render thread (templateVariables), so a large template never holds
 * the event loop that answers every other request.
 * @example analyzeTask({ content: { body: 'Hi {{ n }}' }, maxTags: 5000 }) // { variables: ['n'] }
 */
export function analyzeTask({ content, maxTags }: AnalyzeTask): AnalyzeResult {
  try {
    return { variables: templateVariables(content, { maxTags }) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}
