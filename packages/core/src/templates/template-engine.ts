import { Context, Liquid, UndefinedVariableError } from 'liquidjs';
import { unstorableText } from '@tidings/contracts/storable-text';
import { AppError } from '../errors.ts';
import { countTags, globalVariableNames } from './template-analysis.ts';

// Liquid (`{{ name }}` placeholders) in strict mode: a variable the caller did not give is an error, not an empty
// string. `templates: {}` gives include/render an empty in-memory file system, so a template can never read a file;
// the limits stop a hostile template (a huge loop). Rendering runs on worker threads (template-renderer.ts), each
// render limited to what is left of its request's budget, counted in CPU time (cpuClockMs).
/** Liquid's memoryLimit: what its filters (html's escape among them) may produce in one render of a part. */
export const LIQUID_MEMORY_LIMIT = 10_000_000;
const common = {
  strictVariables: true,
  lenientIf: true,
  ownPropertyOnly: true,
  templates: {},
  parseLimit: 1_000_000,
  // the limit of a render given none; the render threads pass what is left of their task's budget
  renderLimit: 1_000,
  memoryLimit: LIQUID_MEMORY_LIMIT,
} as const;
const escaping = new Liquid({ ...common, outputEscape: 'escape' });
const verbatim = new Liquid(common);
// html escapes what an output inserts; an output whose last filter escapes already is left as it is (raw), else
// `{{ name | escape }}` gave `&amp;amp;`
for (const name of ['escape', 'escape_once', 'xml_escape']) {
  const filter = escaping.filters[name]!;
  escaping.registerFilter(name, { raw: true, handler: typeof filter === 'function' ? filter : filter.handler });
}

export type TemplateContent = { subject?: string | null; html?: string | null; text?: string | null; body?: string | null };

/**
 * CPU time in ms of the calling thread where the runtime tells it (process.threadCpuUsage, Node 22.19 and 24), else
 * of the process: what a render itself costs. Wall-clock time also counts the wait for a core, and a niced render
 * thread on a saturated machine (or one compiling Liquid's code cold) waited past the budget with a harmless template.
 */
export function cpuClockMs(): number {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ?? process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

type RenderLimit = NonNullable<ConstructorParameters<typeof Context>[3]>['renderLimit'];

/** Liquid's render limit (checked before each node it renders) against `deadlineMs` of cpuClockMs. */
function cpuRenderLimit(deadlineMs: number): RenderLimit {
  const check = () => {
    if (cpuClockMs() > deadlineMs) throw new Error('template render limit exceeded');
  };
  return { check, use: check } as unknown as RenderLimit;
}

/** Rendering ran out of the time it was given (`renderLimitMs`). */
export class RenderBudgetExceeded extends Error {
  constructor() {
    super('template render limit exceeded');
    this.name = 'RenderBudgetExceeded';
  }
}

/** Liquid's own words when a render passes its time limit (it throws a plain error wrapped in a RenderError). */
const isRenderLimit = (error: unknown) => error instanceof Error && error.message.includes('template render limit exceeded');
const PARTS = ['subject', 'html', 'text', 'body'] as const;

/** The engine's own words (they say where in the template), kept short for a 400 message. */
function engineMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** Tags and outputs one part may hold by default (TEMPLATE_MAX_TAGS): a large newsletter has a few hundred. */
export const DEFAULT_MAX_TAGS = 5_000;

/**
 * Parses each part, so a broken template is refused when it is saved (400 naming the part), and returns the
 * top-level variable names the parts use, in order of first use. A part with more than `maxTags` tags and outputs is
 * refused before it is parsed. Linear in the template (template-analysis.ts); run it on a render thread
 * (TemplateRenderer.analyze) for a caller's template.
 * @example templateVariables({ subject: 'Hi {{ firstName }}', html: '<b>{{ code }}</b>' }) // ['firstName', 'code']
 */
export function templateVariables(content: TemplateContent, { maxTags = DEFAULT_MAX_TAGS }: { maxTags?: number } = {}): string[] {
  const names = new Set<string>();
  for (const part of PARTS) {
    const source = content[part];
    if (!source) continue;
    const tags = countTags(source);
    if (tags > maxTags) {
      throw new AppError('BAD_REQUEST', `${part}: the template has ${tags} tags and outputs; a template may have at most ${maxTags}.`);
    }
    try {
      for (const name of globalVariableNames(verbatim.parse(source))) names.add(name);
    } catch (error) {
      throw new AppError('BAD_REQUEST', `${part}: not a valid template: ${engineMessage(error)}`);
    }
  }
  return [...names];
}

/** One part of a template as Liquid parsed it, with the engine that renders it (html's escapes what it inserts). */
export type ParsedPart = { part: (typeof PARTS)[number]; engine: Liquid; templates: ReturnType<Liquid['parse']> };

/**
 * Parses each part present with its engine; a part that does not parse is BAD_REQUEST naming it.
 * @example parseParts({ subject: 'Hi {{ n }}' }) // [{ part: 'subject', engine, templates }]
 */
export function parseParts(content: TemplateContent): ParsedPart[] {
  return PARTS.flatMap((part) => {
    const source = content[part];
    if (source === null || source === undefined) return [];
    const engine = part === 'html' ? escaping : verbatim;
    try {
      return [{ part, engine, templates: engine.parse(source) }];
    } catch (error) {
      throw new AppError('BAD_REQUEST', `${part}: could not render the template: ${engineMessage(error)}`);
    }
  });
}

/**
 * Parses each part once and returns a renderer for many sets of variables (a render task of a broadcast chunk
 * renders one template for each of its contacts). `html` HTML-escapes what placeholders insert; `subject`, `text` and `body` do not. A variable
 * the template uses but `variables` lacks is BAD_REQUEST naming it. All parts of one call together may take
 * `renderLimitMs` of CPU time (RenderBudgetExceeded past it; the engine's 1 s per part when absent). Synchronous: render on a
 * worker thread (template-renderer.ts) when the template is a caller's.
 * @example const render = compileContent({ subject: 'Hi {{ contact.firstName }}' }); render({ contact: { firstName: 'Ada' } }).subject // 'Hi Ada'
 */
export function compileContent(content: TemplateContent): (variables: Record<string, unknown>, limits?: { renderLimitMs: number }) => Required<TemplateContent> {
  const parsed = parseParts(content);
  return (variables, limits) => {
    const out: Required<TemplateContent> = { subject: null, html: null, text: null, body: null };
    const deadline = limits ? cpuClockMs() + limits.renderLimitMs : Infinity;
    for (const { part, engine, templates } of parsed) {
      if (cpuClockMs() > deadline) throw new RenderBudgetExceeded();
      try {
        const scope = Number.isFinite(deadline) ? new Context(variables, engine.options, { sync: true }, { liquid: engine, renderLimit: cpuRenderLimit(deadline) }) : variables;
        out[part] = engine.renderSync(templates, scope) as string;
      } catch (error) {
        if (isRenderLimit(error) || isRenderLimit((error as { originalError?: unknown }).originalError)) throw new RenderBudgetExceeded();
        const cause = error instanceof UndefinedVariableError ? error : (error as { originalError?: unknown }).originalError;
        if (error instanceof UndefinedVariableError || cause instanceof UndefinedVariableError) {
          const name = /undefined variable: ([^,\s]+)/.exec(engineMessage(error))?.[1] ?? 'unknown';
          throw new AppError('BAD_REQUEST', `variables.${name}: missing; the template's ${part} uses it`);
        }
        throw new AppError('BAD_REQUEST', `${part}: could not render the template: ${engineMessage(error)}`);
      }
    }
    // The rendered text is stored with the message: what Postgres cannot hold (NUL from a value, a lone surrogate from
    // a filter that cut a pair in two) is the caller's 400, not a database error.
    for (const part of PARTS) {
      const problem = out[part] === null ? null : unstorableText(out[part]);
      if (problem) throw new AppError('BAD_REQUEST', `${part}: the rendered template ${problem}`);
    }
    return out;
  };
}

/**
 * Renders each part with `variables` once (see `compileContent` for the rules), all parts within `renderLimitMs`.
 * @example renderContent({ html: '<p>{{ name }}</p>' }, { name: '<Ada>' }, { renderLimitMs: 250 }) // { html: '<p>&lt;Ada&gt;</p>' }
 */
export function renderContent(content: TemplateContent, variables: Record<string, unknown>, limits: { renderLimitMs: number }): Required<TemplateContent> {
  return compileContent(content)(variables, limits);
}
