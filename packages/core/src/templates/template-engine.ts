import { Liquid, UndefinedVariableError } from 'liquidjs';
import { AppError } from '../errors.ts';

// Liquid (`{{ name }}` placeholders) in strict mode: a variable the caller did not give is an error, not an empty
// string. `templates: {}` gives include/render an empty in-memory file system, so a template can never read a file;
// the limits stop a hostile template (a huge loop) from tying up the process.
const common = {
  strictVariables: true,
  lenientIf: true,
  ownPropertyOnly: true,
  templates: {},
  parseLimit: 1_000_000,
  renderLimit: 1_000,
  memoryLimit: 10_000_000,
} as const;
const escaping = new Liquid({ ...common, outputEscape: 'escape' });
const verbatim = new Liquid(common);

export type TemplateContent = { subject?: string | null; html?: string | null; text?: string | null; body?: string | null };
const PARTS = ['subject', 'html', 'text', 'body'] as const;

/** The engine's own words (they say where in the template), kept short for a 400 message. */
function engineMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/**
 * Parses each part, so a broken template is refused when it is saved (400 naming the part), and returns the
 * top-level variable names the parts use, in order of first use.
 * @example templateVariables({ subject: 'Hi {{ firstName }}', html: '<b>{{ code }}</b>' }) // ['firstName', 'code']
 */
export function templateVariables(content: TemplateContent): string[] {
  const names = new Set<string>();
  for (const part of PARTS) {
    const source = content[part];
    if (!source) continue;
    try {
      for (const name of verbatim.globalVariablesSync(source)) names.add(name);
    } catch (error) {
      throw new AppError('BAD_REQUEST', `${part}: not a valid template: ${engineMessage(error)}`);
    }
  }
  return [...names];
}

/**
 * Parses each part once and returns a renderer for many sets of variables (a broadcast renders one template for
 * thousands of contacts). Rendering follows `renderContent`'s rules and errors.
 * @example const render = compileContent({ subject: 'Hi {{ contact.firstName }}' }); render({ contact: { firstName: 'Ada' } }).subject // 'Hi Ada'
 */
export function compileContent(content: TemplateContent): (variables: Record<string, unknown>) => Required<TemplateContent> {
  const parsed = PARTS.flatMap((part) => {
    const source = content[part];
    if (source === null || source === undefined) return [];
    const engine = part === 'html' ? escaping : verbatim;
    try {
      return [{ part, engine, templates: engine.parse(source) }];
    } catch (error) {
      throw new AppError('BAD_REQUEST', `${part}: could not render the template: ${engineMessage(error)}`);
    }
  });
  return (variables) => {
    const out: Required<TemplateContent> = { subject: null, html: null, text: null, body: null };
    for (const { part, engine, templates } of parsed) {
      try {
        out[part] = engine.renderSync(templates, variables) as string;
      } catch (error) {
        const cause = error instanceof UndefinedVariableError ? error : (error as { originalError?: unknown }).originalError;
        if (error instanceof UndefinedVariableError || cause instanceof UndefinedVariableError) {
          const name = /undefined variable: ([^,\s]+)/.exec(engineMessage(error))?.[1] ?? 'unknown';
          throw new AppError('BAD_REQUEST', `variables.${name}: missing; the template's ${part} uses it`);
        }
        throw new AppError('BAD_REQUEST', `${part}: could not render the template: ${engineMessage(error)}`);
      }
    }
    // The rendered text is stored with the message, and Postgres text cannot hold NUL.
    for (const part of PARTS) {
      if (out[part]?.includes('\u0000')) throw new AppError('BAD_REQUEST', `variables: a value puts the NUL character (U+0000) into the ${part}`);
    }
    return out;
  };
}

/**
 * Renders each part with `variables`: `html` HTML-escapes what placeholders insert; `subject`, `text` and `body` do not.
 * A variable the template uses but `variables` lacks is BAD_REQUEST naming it.
 * @example renderContent({ html: '<p>{{ name }}</p>' }, { name: '<Ada>' }) // { html: '<p>&lt;Ada&gt;</p>' }
 */
export function renderContent(content: TemplateContent, variables: Record<string, unknown>): Required<TemplateContent> {
  return compileContent(content)(variables);
}
