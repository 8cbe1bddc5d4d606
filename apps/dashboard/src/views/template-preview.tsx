import type { TemplatePreview } from '@tidings/contracts';
import { AppError } from '@tidings/core';
import { EmailFrame } from './message-views.tsx';

/** The preview pane: a rendering, or why there is none. */
export type PreviewState = { preview: TemplatePreview } | { error: string };

/** A rendering for the preview pane; a template error (a missing variable, a broken part) is shown there instead. */
export async function previewOf(render: () => Promise<TemplatePreview>): Promise<PreviewState> {
  try {
    return { preview: await render() };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { error: error.message };
    throw error;
  }
}

/** The rendered template: subject, HTML in a frame that runs nothing, text part; or the SMS with its segments. */
export function PreviewPane({ state, title = 'Preview' }: { state: PreviewState; title?: string }) {
  return (
    <section id="preview" class="card preview-pane" aria-labelledby="preview-title" aria-live="polite">
      <h2 id="preview-title">{title}</h2>
      {'error' in state ? (
        <p class="form-error" role="alert">
          {state.error}
        </p>
      ) : state.preview.channelType === 'sms' ? (
        <div class="sms-thread">
          <p class="sms-bubble">{state.preview.body}</p>
          <small class="muted" id="sms-segments">
            {state.preview.segments} segment{state.preview.segments === 1 ? '' : 's'} · {state.preview.encoding}
          </small>
        </div>
      ) : (
        <>
          <p class="preview-subject">
            <strong>{state.preview.subject}</strong>
          </p>
          {state.preview.html ? <EmailFrame html={state.preview.html} title="Preview of the HTML part" /> : <p class="muted">No HTML part.</p>}
          {state.preview.text && (
            <>
              <h3 class="part-heading">Text part</h3>
              <pre class="text-part">{state.preview.text}</pre>
            </>
          )}
        </>
      )}
    </section>
  );
}
