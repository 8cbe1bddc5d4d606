import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import { createFairSlots } from './fair-slots.ts';
import type { AnalyzeResult, AnalyzeTask, RenderJob, RenderOutcome, RenderTask, RenderTaskResult, RenderTaskStarted } from './render-task.ts';
import { DEFAULT_MAX_TAGS, type TemplateContent, templateVariables } from './template-engine.ts';

/** A job and what its errors call it: the template id, so a refusal names the template. */
export type LabelledRenderJob = RenderJob & { templateId: string };

/** Renders templates off the event loop; one per process, in `Deps`. */
export type TemplateRenderer = {
  /**
   * Renders every job of one request (a send, a batch, a preview, a broadcast chunk) on a worker thread, within one
   * budget for all of them together. Each entry is the job's rendered parts or its AppError (a missing variable...).
   * Throws BAD_REQUEST naming the template when the budget runs out. No thread is involved for an empty list.
   * `orgId`: the threads are shared in turn between organizations (createFairSlots), so one flooding previews or a
   * broadcast does not hold another's sends behind all of its renders.
   */
  render(jobs: LabelledRenderJob[], options?: { orgId?: string }): Promise<(Required<TemplateContent> | AppError)[]>;
  /**
   * Parses a template and lists the variables it uses (templateVariables), on a render thread unless it is small:
   * BAD_REQUEST naming the part when it does not parse or has more than `maxTags` tags and outputs.
   */
  analyze(content: TemplateContent, options?: { orgId?: string }): Promise<string[]>;
  close(): Promise<void>;
};

export type TemplateRendererOptions = {
  /** CPU time every render of one request may take together (Liquid stops itself when it runs out). */
  budgetMs: number;
  /** Worker threads at most; each renders one request at a time. */
  threads: number;
  /** Tags and outputs one part of a template may hold (TEMPLATE_MAX_TAGS). */
  maxTags?: number;
  /** Wall-clock time of one turn of a thread, parse included, before a task hands it back between two jobs (the budget). */
  turnMs?: number;
};

// Liquid checks its render limit (CPU time) between the nodes it renders; a single node that never yields (a huge
// filter) is stopped by ending its thread after this many budgets of wall-clock time, plus a margin: generous, since a
// starved or cold thread takes longer than its CPU time to do harmless work.
const HARD_STOP_BUDGETS = 20;
const HARD_STOP_MARGIN_MS = 5_000;

/**
 * The wall-clock time after which a render task is ended whatever it does: the only wall-clock bound (the budget is
 * CPU time, which a busy machine stretches).
 * @example renderHardStopMs(250) // 10000
 */
export function renderHardStopMs(budgetMs: number): number {
  return budgetMs * HARD_STOP_BUDGETS + HARD_STOP_MARGIN_MS;
}
// A built app has the task compiled beside its bundle (scripts/build.ts); from the sources a shim loads it through tsx.
const BUILT_WORKER_FILE = path.join(__dirname, 'render-task.js');
const WORKER_FILE = existsSync(BUILT_WORKER_FILE) ? BUILT_WORKER_FILE : path.join(__dirname, 'render.worker.cjs');

/** Templates up to this many characters (all parts) are analysed on the calling thread (see `analyze`). */
const INLINE_ANALYSIS_CHARS = 8_192;

/** Only the parts cross to the thread (a version row passed as content carries its other columns too). */
const pickParts = ({ subject, html, text, body }: TemplateContent): TemplateContent => ({ subject, html, text, body });

function budgetError(templateIds: string[], budgetMs: number): AppError {
  const names = [...new Set(templateIds)].join(', ');
  return new AppError(
    'BAD_REQUEST',
    `templateId: rendering the template ${names} takes more than the ${budgetMs} ms of CPU time one request may spend rendering; simplify its loops or filters.`,
  );
}

/**
 * The process's template renderer: a pool of worker threads (started on first use), so a hostile template (nested
 * loops) never holds the event loop, and every other request is answered meanwhile.
 * @example
 * const renderer = createTemplateRenderer({ budgetMs: 250, threads: 2 });
 * const [result] = await renderer.render([{ templateId: 'tpl_1', content: { body: 'Hi {{ n }}' }, variables: { n: 'Ada' } }]);
 * // { subject: null, html: null, text: null, body: 'Hi Ada' }
 */
export function createTemplateRenderer(options: TemplateRendererOptions): TemplateRenderer {
  let pool: Piscina | null = null;
  // one task per thread at a time, the threads handed out in turn between organizations (nothing waits in Piscina's
  // own queue, which is first come first served)
  const slots = createFairSlots(options.threads);
  const onStart = new Map<string, () => void>();
  const poolOf = (): Piscina => {
    if (pool) return pool;
    // Threads start on first use and end after a minute idle, none kept: each is a V8 isolate of its own (about
    // 30 MiB), and most processes render rarely or never (a plain send does not). A render's budget starts when its
    // thread picks it up, so a thread's start is not spent from it. niceIncrement: a render thread yields the CPU to
    // the request-handling thread when both want it.
    pool = new Piscina({ filename: WORKER_FILE, minThreads: 0, maxThreads: options.threads, idleTimeout: 60_000, niceIncrement: 10 });
    pool.on('message', (message: RenderTaskStarted) => onStart.get(message.renderTaskStarted)?.());
    return pool;
  };

  /** One task in the organization's turn of a thread, ended (budget error) past the hard stop. */
  const runTurn = async (orgId: string, task: RenderTask, templateIds: () => string[]): Promise<RenderTaskResult> => {
    const stop = new AbortController();
    let hardStop: NodeJS.Timeout | undefined;
    onStart.set(task.taskId, () => {
      hardStop = setTimeout(() => stop.abort(), renderHardStopMs(options.budgetMs));
    });
    try {
      return await slots.run(orgId, () => poolOf().run(task, { signal: stop.signal }));
    } catch (error) {
      if (stop.signal.aborted) throw budgetError(templateIds(), options.budgetMs);
      throw error;
    } finally {
      clearTimeout(hardStop);
      onStart.delete(task.taskId);
    }
  };

  return {
    async render(jobs, { orgId = '' } = {}) {
      if (jobs.length === 0) return [];
      // jobs that share a content object (a broadcast chunk's) send and parse it once
      const contents: TemplateContent[] = [];
      const indexOf = new Map<TemplateContent, number>();
      const taskJobs = jobs.map(({ content, variables }) => {
        let index = indexOf.get(content);
        if (index === undefined) {
          index = contents.push(pickParts(content)) - 1;
          indexOf.set(content, index);
        }
        return { content: index, variables };
      });
      const outcomes: RenderOutcome[] = [];
      let spentMs = 0;
      // one turn at a time: a task past its turn's wall-clock time answers the jobs done, and the rest waits for the
      // organization's next turn (other organizations' tasks go in between)
      while (outcomes.length < jobs.length) {
        const from = outcomes.length;
        const task: RenderTask = { taskId: randomUUID(), contents, jobs: taskJobs.slice(from), budgetMs: options.budgetMs, spentMs, turnMs: options.turnMs ?? options.budgetMs };
        const result = await runTurn(orgId, task, () => jobs.slice(from).map((job) => job.templateId));
        if ('exceededAt' in result) throw budgetError([jobs[from + result.exceededAt]!.templateId], options.budgetMs);
        outcomes.push(...result.outcomes);
        spentMs = result.spentMs;
      }
      return outcomes.map((outcome) => ('parts' in outcome ? outcome.parts : new AppError(outcome.error.code, outcome.error.message)));
    },
    async analyze(content, { orgId = '' } = {}) {
      const parts = pickParts(content);
      // A small template is analysed here in well under a millisecond a KB (linear): a render thread's round trip (and a
      // cold thread's start) would cost more. A larger one goes to a thread, so the event loop never holds for it.
      const size = Object.values(parts).reduce((sum, part) => sum + (part?.length ?? 0), 0);
      if (size <= INLINE_ANALYSIS_CHARS) return templateVariables(parts, { maxTags: options.maxTags ?? DEFAULT_MAX_TAGS });
      const task: AnalyzeTask = { content: parts, maxTags: options.maxTags ?? DEFAULT_MAX_TAGS };
      const result: AnalyzeResult = await slots.run(orgId, () => poolOf().run(task, { name: 'analyzeTask' }));
      if ('error' in result) throw new AppError(result.error.code, result.error.message);
      return result.variables;
    },
    async close() {
      await pool?.destroy();
      pool = null;
    },
  };
}
