import { isPasswordResetUsable, PASSWORD_RESET_TTL_MS, requestPasswordReset, resetPasswordWithToken } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash } from '../auth/cookies.ts';
import { passwordResetRetryMinutes, tryAgainIn } from '../auth/rate-limits.ts';
import type { DashEnv } from '../env.ts';
import { Field, fieldErrorsOf, NewPasswordField, FormError, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render } from '../views/render.tsx';
import { formOf } from './auth.page.tsx';

const LINK_MINUTES = PASSWORD_RESET_TTL_MS / 60_000;

function ForgotPage({ c, email, errors, isSent }: { c: Context<DashEnv>; email?: string; errors: FieldErrors; isSent?: boolean }) {
  return (
    <Layout c={c} title="Forgot password">
      <article class="auth-card">
        <header>
          <h1>Forgot your password?</h1>
          <p class="muted">Enter the email address you sign in with: we send it a link to choose a new password.</p>
        </header>
        {isSent ? (
          <p role="status" id="reset-sent">
            If {email} has an account, a link to choose a new password is on its way. It works once, for {LINK_MINUTES} minutes.
          </p>
        ) : (
          <form method="post" action="/forgot-password" novalidate>
            <CsrfField c={c} />
            <FormError errors={errors} />
            <Field name="email" label="Email" type="email" value={email} errors={errors} autocomplete="username" required autofocus />
            <button type="submit">Send the link</button>
          </form>
        )}
        <footer>
          <p>
            <a href="/sign-in">Back to sign in</a>
          </p>
        </footer>
      </article>
    </Layout>
  );
}

function NewPasswordPage({ c, token, errors }: { c: Context<DashEnv>; token: string; errors: FieldErrors }) {
  return (
    <Layout c={c} title="Choose a new password">
      <article class="auth-card">
        <header>
          <h1>Choose a new password</h1>
          <p class="muted">Every session of your account ends: sign in again with the new password.</p>
        </header>
        <form method="post" action={`/reset-password/${token}`} novalidate>
          <CsrfField c={c} />
          <FormError errors={errors} />
          <NewPasswordField label="New password" errors={errors} autofocus />
          <button type="submit">Set the password</button>
        </form>
      </article>
    </Layout>
  );
}

function LinkRefusedPage({ c }: { c: Context<DashEnv> }) {
  return render(
    c,
    <Layout c={c} title="Link expired">
      <article class="auth-card" id="reset-link-refused">
        <h1>This link no longer works</h1>
        <p>A password reset link works once, for {LINK_MINUTES} minutes, and asking for a new one ends the old ones once it is used. Ask for a new link.</p>
        <a href="/forgot-password" role="button">
          Send a new link
        </a>
      </article>
    </Layout>,
    410,
  );
}

/** "Forgot password": ask for a link by email, and the page the link opens to choose a new password. */
export const passwordResetRoutes = new Hono<DashEnv>();

passwordResetRoutes.get('/forgot-password', (c) => render(c, <ForgotPage c={c} errors={{}} />));

passwordResetRoutes.post('/forgot-password', async (c) => {
  const email = ((await formOf(c)).email ?? '').trim();
  if (!email) return render(c, <ForgotPage c={c} errors={{ email: 'Enter your email address.' }} />, 400);
  const waitMinutes = await passwordResetRetryMinutes(c, email);
  if (waitMinutes !== null) {
    c.header('Retry-After', String(waitMinutes * 60));
    return render(c, <ForgotPage c={c} email={email} errors={{ form: `Too many requests. ${tryAgainIn(waitMinutes)}` }} />, 429);
  }
  // Not awaited: the answer must take as long whether the address has an account (and an email to send) or not.
  const { deps } = c.var;
  requestPasswordReset(deps, email).catch((error) => deps.logger.error({ err: error }, 'password reset request failed'));
  return render(c, <ForgotPage c={c} email={email} errors={{}} isSent />);
});

passwordResetRoutes.get('/reset-password/:token', async (c) => {
  const token = c.req.param('token');
  if (!(await isPasswordResetUsable(c.var.deps, token))) return LinkRefusedPage({ c });
  return render(c, <NewPasswordPage c={c} token={token} errors={{}} />);
});

passwordResetRoutes.post('/reset-password/:token', async (c) => {
  const token = c.req.param('token');
  const { password = '' } = await formOf(c);
  try {
    await resetPasswordWithToken(c.var.deps, token, password);
  } catch (error) {
    const errors = fieldErrorsOf(error, ['password']);
    if (!errors.password) return LinkRefusedPage({ c });
    return render(c, <NewPasswordPage c={c} token={token} errors={errors} />, 400);
  }
  setFlash(c, 'Your password is changed, and every session of your account has ended. Sign in with the new password.');
  return c.redirect('/sign-in', 303);
});
