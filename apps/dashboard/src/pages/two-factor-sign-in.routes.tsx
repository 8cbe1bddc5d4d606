import { verifySecondFactor } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash } from '../auth/cookies.ts';
import { countWrongCode, endPendingSignIn, findPendingSignIn } from '../auth/pending-sign-in.ts';
import { signInRetryMinutes, tryAgainIn } from '../auth/rate-limits.ts';
import { startSession } from '../auth/start-session.ts';
import type { DashEnv } from '../env.ts';
import { Field, FormError, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render } from '../views/render.tsx';
import { formOf } from './auth.page.tsx';

function CodePage({ c, errors }: { c: Context<DashEnv>; errors: FieldErrors }) {
  return (
    <Layout c={c} title="Two-factor sign-in">
      <article class="auth-card">
        <header>
          <h1>Enter your code</h1>
          <p class="muted">The 6-digit code your authenticator app shows for Tidings, or one of your recovery codes.</p>
        </header>
        <form method="post" action="/sign-in/two-factor" novalidate>
          <CsrfField c={c} />
          <FormError errors={errors} />
          <Field name="code" label="Code" errors={errors} autocomplete="one-time-code" required autofocus />
          <button type="submit">Verify</button>
        </form>
        <footer>
          <p class="muted">
            Lost your phone and your recovery codes? An owner of your organization can reset your second factor. <a href="/sign-in">Start again</a>
          </p>
        </footer>
      </article>
    </Layout>
  );
}

/** The second step of signing in for people with two-factor on: the code after the password. */
export const twoFactorSignInRoutes = new Hono<DashEnv>();

twoFactorSignInRoutes.get('/sign-in/two-factor', async (c) => {
  if (!(await findPendingSignIn(c))) return c.redirect('/sign-in', 303);
  return render(c, <CodePage c={c} errors={{}} />);
});

twoFactorSignInRoutes.post('/sign-in/two-factor', async (c) => {
  const pending = await findPendingSignIn(c);
  if (!pending) {
    setFlash(c, 'Your sign-in timed out: enter your password again.');
    return c.redirect('/sign-in', 303);
  }
  const code = (await formOf(c)).code?.trim() ?? '';
  if (!code) return render(c, <CodePage c={c} errors={{ code: 'Enter the code.' }} />, 400);
  // codes count against the same limits as passwords: six digits must not be guessable by brute force
  const waitMinutes = await signInRetryMinutes(c, pending.email);
  if (waitMinutes !== null) {
    c.header('Retry-After', String(waitMinutes * 60));
    return render(c, <CodePage c={c} errors={{ form: `Too many sign-in attempts. ${tryAgainIn(waitMinutes)}` }} />, 429);
  }
  const used = await verifySecondFactor(c.var.deps, pending.userId, code);
  if (!used) {
    if (!(await countWrongCode(c, pending))) {
      setFlash(c, 'Too many wrong codes: enter your password again.');
      return c.redirect('/sign-in', 303);
    }
    return render(c, <CodePage c={c} errors={{ code: 'That code is not right, or was already used. Enter the current one.' }} />, 401);
  }
  await endPendingSignIn(c);
  await startSession(c, pending.userId);
  if (used === 'recovery') setFlash(c, 'You signed in with a recovery code: it will not work again. Settings > Account shows how many you have left.');
  return c.redirect(pending.next, 303);
});
