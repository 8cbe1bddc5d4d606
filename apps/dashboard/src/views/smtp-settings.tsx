import type { Config } from '@tidings/config';

/**
 * The settings an app that speaks only SMTP pastes in: host, ports, any user name, an API key as the password.
 * @example <SmtpSettings settings={c.var.deps.config.smtpSubmission} />
 */
export function SmtpSettings({ settings }: { settings: Config['smtpSubmission'] }) {
  return (
    <article id="smtp-settings" aria-labelledby="smtp-settings-title">
      <header>
        <strong id="smtp-settings-title">SMTP settings</strong>
      </header>
      <p>Apps that send through SMTP (auth providers, CMSs, framework mailers) use a key as their SMTP password; each mail becomes one message.</p>
      <dl class="smtp-settings">
        <dt>Host</dt>
        <dd>
          <code>{settings.publicHost}</code>
        </dd>
        <dt>Port</dt>
        <dd>
          <code>{settings.port}</code> with STARTTLS, or <code>{settings.tlsPort}</code> with TLS (SSL)
        </dd>
        <dt>User name</dt>
        <dd>
          any, e.g. <code>tidings</code>
        </dd>
        <dt>Password</dt>
        <dd>
          an API key: <code>sk_live_…</code> sends through your providers, <code>sk_test_…</code> through the sandbox
        </dd>
      </dl>
    </article>
  );
}
