// What the fan-out renders for each recipient of a broadcast: the variables its template sees, and the renders
// themselves, on this thread or the render threads within their CPU budget.
import type { Contact as ContactRow, Broadcast as BroadcastRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { compileSimpleTemplate } from '../templates/simple-template.ts';
import type { TemplateContent } from '../templates/template-engine.ts';
import { preferencesUrl, unsubscribeUrl } from './unsubscribe-token.ts';

/** What a template sees of a contact (and all the fan-out reads of one); `position`: its number among the recipients. */
export type RecipientContact = Pick<ContactRow, 'id' | 'email' | 'phone' | 'firstName' | 'lastName' | 'attributes'> & { position?: number };

/** The contact as templates see it: `{{ contact.firstName }}`, `{{ contact.attributes.plan }}`. */
function contactVariables(contact: RecipientContact) {
  const { id, email, phone, firstName, lastName, attributes } = contact;
  return { id, email, phone, firstName, lastName, attributes: attributes ?? {} };
}

/**
 * What the template of `broadcast` sees for `contact`: the broadcast's variables, `contact`, `unsubscribeUrl` and
 * `preferencesUrl` (the fan-out and the dashboard's preview for one contact render with the same).
 */
export function broadcastVariables(config: Deps['config'], broadcast: Pick<BroadcastRow, 'id' | 'variables'>, contact: RecipientContact): Record<string, unknown> {
  const { publicApiUrl, broadcasts } = config;
  return {
    ...((broadcast.variables ?? {}) as Record<string, unknown>),
    contact: contactVariables(contact),
    unsubscribeUrl: unsubscribeUrl(publicApiUrl, broadcasts.unsubscribeSecret, { contactId: contact.id, broadcastId: broadcast.id }),
    preferencesUrl: preferencesUrl(publicApiUrl, broadcasts.unsubscribeSecret, { contactId: contact.id, broadcastId: broadcast.id }),
  };
}

/** Why a message of a broadcast failed before reaching a provider. */
export type Failure = { code: string; message: string };
/** A template rendered for one recipient: every part, empty ones included. */
export type Rendered = Required<TemplateContent>;

/**
 * Times a chunk is tried before a render over the budget fails its messages. The budget is the render thread's CPU
 * time (a saturated machine's wait for a core does not count), so a harmless template does not run past it; a try
 * again covers a thread that died. A hostile template costs one budget per try.
 */
export const BROADCAST_RENDER_ATTEMPTS = 3;

/**
 * Renders one template for each set of variables: a template that only inserts variables on this thread (it cannot
 * loop: about 3 ms per 1,000 contacts, less than sending them to a thread), any other on the render threads
 * (deps.renderer), `renderBatchSize` contacts per task and one TEMPLATE_RENDER_BUDGET_MS per task, so the worker's
 * event loop never waits for a Liquid render. As many
 * tasks run at once as there are render threads (one at a time, a chunk waited a thread round trip per task). A
 * contact's own error (a missing attribute) is its failure. A task over the budget throws while `attempt` is below
 * BROADCAST_RENDER_ATTEMPTS (the chunk runs again); at the last it fails the contacts not rendered yet and starts no
 * other task: every contact has the same template, so each task would spend the budget again.
 */
export async function renderEach(
  deps: Deps,
  { orgId, templateId, content }: { orgId: string; templateId: string; content: TemplateContent },
  variables: Record<string, unknown>[],
  attempt: number,
): Promise<(Rendered | Failure)[]> {
  const size = deps.config.broadcasts.renderBatchSize;
  const { budgetMs, threads } = deps.config.templateRender;
  const results: (Rendered | Failure | undefined)[] = new Array(variables.length);
  // A template that only inserts variables renders here, a few microseconds a contact (simple-template.ts); the
  // contacts it leaves to Liquid (and every contact of any other template) go to the render threads.
  const simple = compileSimpleTemplate(content);
  const pending: number[] = [];
  for (const [index, v] of variables.entries()) {
    const rendered = simple?.(v);
    if (rendered) results[index] = rendered;
    else pending.push(index);
  }
  let next = 0;
  let overBudget: number | null = null; // the size of a task that ran over the budget
  const runTasks = async (): Promise<void> => {
    while (overBudget === null && next < pending.length) {
      const batch = pending.slice(next, next + size);
      next += size;
      try {
        const rendered = await deps.renderer.render(
          batch.map((index) => ({ templateId, content, variables: variables[index]! })),
          { orgId },
        );
        rendered.forEach((r, i) => {
          results[batch[i]!] = r instanceof AppError ? { code: 'RENDER_FAILED', message: r.message } : r;
        });
      } catch (error) {
        // the renderer's only AppError is the budget; anything else (a render thread that died) runs the chunk again
        if (!(error instanceof AppError)) throw error;
        overBudget = batch.length;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, Math.ceil(pending.length / size)) }, runTasks));
  if (overBudget === null) return results as (Rendered | Failure)[];
  if (attempt < BROADCAST_RENDER_ATTEMPTS) throw new Error(`rendering the template ${templateId} took more than the ${budgetMs} ms CPU budget (try ${attempt})`);
  const message = `templateId: rendering the template ${templateId} for ${overBudget} contact(s) took more than the ${budgetMs} ms of CPU time its budget allows; simplify its loops or filters.`;
  return Array.from(results, (r) => r ?? { code: 'RENDER_FAILED', message });
}

/** What makes a rendered message unsendable (no subject or content, an empty SMS), or null. */
export function renderedProblem({ subject, html, text, body }: Rendered, isEmail: boolean): Failure | null {
  if (isEmail && (!subject || (!html && !text))) return { code: 'RENDER_FAILED', message: 'The rendered email has no subject, or neither html nor text' };
  if (!isEmail && !body) return { code: 'RENDER_FAILED', message: 'The rendered SMS body is empty' };
  return null;
}
