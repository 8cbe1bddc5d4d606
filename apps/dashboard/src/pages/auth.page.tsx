import { deleteSession, isSignUpOpen, organizationForFirstSignUp, signUpFirstOwner, twoFactorStatus, verifyCredentials } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { clearDashboardCookie, SESSION_COOKIE, setFlash, takeFlash } from '../auth/cookies.ts';
import { startPendingSignIn } from '../auth/pending-sign-in.ts';
import { signInRetryMinutes, tryAgainIn } from '../auth/rate-limits.ts';
import { startSession } from '../auth/start-session.ts';
import type { DashEnv } from '../env.ts';
import { safeNext } from '../middleware/require.ts';
import { apiKeysPage } from './api-keys.page.tsx';
import { Field, fieldErrorsOf, NewPasswordField, FormError, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render } from '../views/render.tsx';

export type Form = Record<string, string>;

/** The fields of a posted form, as strings (a file field becomes empty). */
export async function formOf(c: Context<DashEnv>): Promise<Form> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : '']));
}

function SignInPage({ c, form, errors, isSignUpOpen }: { c: Context<DashEnv>; form: Form; errors: FieldErrors; isSignUpOpen: boolean }) {
  return (
    <Layout c={c} title="Sign in" flash={takeFlash(c)}>
      <article class="auth-card">
        <header>
          <h1>Sign in</h1>
          <p class="muted">to manage your messaging, API keys and queues.</p>
        </header>
        <form method="post" action="/sign-in" novalidate>
          <CsrfField c={c} />
          <input type="hidden" name="next" value={safeNext(form.next)} />
          <FormError errors={errors} />
          <Field name="email" label="Email" type="email" value={form.email} errors={errors} autocomplete="username" required autofocus />
          <Field name="password" label="Password" type="password" errors={errors} autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        <p>
          <a href="/forgot-password">Forgot your password?</a>
        </p>
        <footer>
          {isSignUpOpen ? (
            <p>
              New install? <a href="/sign-up">Create the first account</a> and its organization.
            </p>
          ) : (
            <p class="muted">No account? Ask an owner of your organization for an invitation link.</p>
          )}
        </footer>
      </article>
    </Layout>
  );
}

function SignUpPage({ c, form, errors, joining }: { c: Context<DashEnv>; form: Form; errors: FieldErrors; joining: { id: string; name: string } | null }) {
  return (
    <Layout c={c} title="Set up Tidings">
      <article class="auth-card">
        <header>
          <h1>Set up Tidings</h1>
          {joining ? (
            <p class="muted" id="joins-organization">
              The first account becomes the owner of <strong>{joining.name}</strong> ({joining.id}), the organization made with <code>tidings orgs create</code>: its keys and
              messages are here.
            </p>
          ) : (
            <p class="muted">The first account creates your organization and becomes its owner.</p>
          )}
        </header>
        <form method="post" action="/sign-up" novalidate>
          <CsrfField c={c} />
          <FormError errors={errors} />
          {joining ? null : (
            <Field name="organizationName" label="Organization" value={form.organizationName} errors={errors} hint="Your company or project, e.g. Acme" required autofocus />
          )}
          <Field name="name" label="Your name" value={form.name} errors={errors} autocomplete="name" />
          <Field name="email" label="Email" type="email" value={form.email} errors={errors} autocomplete="username" required />
          <NewPasswordField label="Password" errors={errors} />
          <button type="submit">{joining ? `Create account in ${joining.name}` : 'Create organization'}</button>
        </form>
        <footer>
          <p>
            Already have an account? <a href="/sign-in">Sign in</a>
          </p>
        </footer>
      </article>
    </Layout>
  );
}

function SignUpClosedPage({ c }: { c: Context<DashEnv> }) {
  return (
    <Layout c={c} title="Sign-up is closed">
      <article class="auth-card">
        <h1>Sign-up is closed</h1>
        <p>This install already has its owner. Ask an owner or operator for an invitation link (Settings &gt; Members), or to add you on the server with:</p>
        <pre>
          <code>npx tidings users create --org &lt;orgId&gt; --email you@example.com</code>
        </pre>
        <a href="/sign-in" role="button">
          Sign in
        </a>
      </article>
    </Layout>
  );
}

/** Sign-up (the first account of an install), sign-in and sign-out. */
export const authRoutes = new Hono<DashEnv>();

authRoutes.get('/sign-in', async (c) => {
  if (c.var.signedIn) return c.redirect(safeNext(c.req.query('next')), 303);
  return render(c, <SignInPage c={c} form={{ next: c.req.query('next') ?? '/' }} errors={{}} isSignUpOpen={await isSignUpOpen(c.var.deps)} />);
});

authRoutes.post('/sign-in', async (c) => {
  const form = await formOf(c);
  const email = form.email ?? '';
  const page = (errors: FieldErrors, status: 400 | 401 | 429) =>
    render(c, <SignInPage c={c} form={{ email, next: form.next ?? '/' }} errors={errors} isSignUpOpen={false} />, status);
  if (!email.trim() || !form.password) {
    return page({ ...(!email.trim() && { email: 'Enter your email address.' }), ...(!form.password && { password: 'Enter your password.' }) }, 400);
  }
  const waitMinutes = await signInRetryMinutes(c, email);
  if (waitMinutes !== null) {
    c.header('Retry-After', String(waitMinutes * 60));
    return page({ form: `Too many sign-in attempts. ${tryAgainIn(waitMinutes)}` }, 429);
  }
  const user = await verifyCredentials(c.var.deps, email, form.password);
  if (!user) return page({ form: 'Email or password is incorrect.' }, 401);
  if ((await twoFactorStatus(c.var.deps, user.id)).isEnabled) {
    // the password alone is half of it: a half-session that opens only the code page
    await startPendingSignIn(c, { userId: user.id, email: user.email, next: safeNext(form.next) });
    return c.redirect('/sign-in/two-factor', 303);
  }
  await startSession(c, user.id);
  return c.redirect(safeNext(form.next), 303);
});

authRoutes.get('/sign-up', async (c) => {
  if (!(await isSignUpOpen(c.var.deps))) return render(c, <SignUpClosedPage c={c} />);
  return render(c, <SignUpPage c={c} form={{}} errors={{}} joining={await organizationForFirstSignUp(c.var.deps)} />);
});

authRoutes.post('/sign-up', async (c) => {
  const form = await formOf(c);
  const input = { email: form.email ?? '', password: form.password ?? '', organizationName: form.organizationName ?? '', name: form.name };
  let user: Awaited<ReturnType<typeof signUpFirstOwner>>['user'];
  let joinedExisting = false;
  try {
    ({ user, joinedExisting } = await signUpFirstOwner(c.var.deps, input));
  } catch (error) {
    const errors = fieldErrorsOf(error, ['email', 'password', 'organizationName']);
    if (errors.form && !(await isSignUpOpen(c.var.deps))) return render(c, <SignUpClosedPage c={c} />, 403);
    return render(c, <SignUpPage c={c} form={{ ...form, password: '' }} errors={errors} joining={await organizationForFirstSignUp(c.var.deps)} />, 400);
  }
  await startSession(c, user.id);
  setFlash(c, joinedExisting ? 'Welcome to Tidings. You own this organization: its keys and messages are below.' : 'Welcome to Tidings. Create an API key to start sending.');
  // a new owner's first step is a key (the flash says so), not the overview where signing in lands
  return c.redirect(apiKeysPage.path, 303);
});

authRoutes.post('/sign-out', async (c) => {
  const token = getCookie(c, SESSION_COOKIE);
  if (token) await deleteSession(c.var.deps, token);
  clearDashboardCookie(c, SESSION_COOKIE);
  setFlash(c, 'You are signed out.');
  return c.redirect('/sign-in', 303);
});
