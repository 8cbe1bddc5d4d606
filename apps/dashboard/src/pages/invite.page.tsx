import { acceptInvitation, findInvitation } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash } from '../auth/cookies.ts';
import { startSession } from '../auth/start-session.ts';
import type { DashEnv } from '../env.ts';
import { Field, fieldErrorsOf, NewPasswordField, FormError, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render } from '../views/render.tsx';
import type { DashboardPage } from './page.ts';

type Found = Awaited<ReturnType<typeof findInvitation>>;

function AcceptPage({ c, token, invitation, errors, name }: { c: Context<DashEnv>; token: string; invitation: Found; errors: FieldErrors; name?: string }) {
  return (
    <Layout c={c} title={`Join ${invitation.orgName}`}>
      <article class="auth-card">
        <header>
          <h1>Join {invitation.orgName}</h1>
          <p class="muted">
            You are invited as <strong>{invitation.role}</strong> with <strong>{invitation.email}</strong>.
          </p>
        </header>
        <form method="post" action={`/invite/${token}`} novalidate>
          <CsrfField c={c} />
          <FormError errors={errors} />
          {invitation.hasAccount ? (
            <Field name="password" label="Password of your account" type="password" errors={errors} autocomplete="current-password" required autofocus />
          ) : (
            <>
              <Field name="name" label="Your name" value={name} errors={errors} autocomplete="name" autofocus />
              <NewPasswordField label="Choose a password" errors={errors} />
            </>
          )}
          <button type="submit">Join {invitation.orgName}</button>
        </form>
      </article>
    </Layout>
  );
}

const routes = new Hono<DashEnv>();

routes.get('/:token', async (c) => {
  const token = c.req.param('token');
  return render(c, <AcceptPage c={c} token={token} invitation={await findInvitation(c.var.deps, token)} errors={{}} />);
});

routes.post('/:token', async (c) => {
  const token = c.req.param('token');
  const form = await c.req.parseBody();
  const input = { password: String(form.password ?? ''), name: String(form.name ?? '') };
  const invitation = await findInvitation(c.var.deps, token);
  let userId: string;
  try {
    ({ id: userId } = await acceptInvitation(c.var.deps, token, input));
  } catch (error) {
    const errors = fieldErrorsOf(error, ['password']);
    return render(c, <AcceptPage c={c} token={token} invitation={invitation} errors={errors} name={input.name} />, 400);
  }
  await startSession(c, userId, invitation.orgId);
  setFlash(c, `Welcome to ${invitation.orgName}.`);
  return c.redirect('/', 303);
});

/** The page behind an invitation link: join the organization, with a new account or an existing one. */
export const invitePage: DashboardPage = { path: '/invite', routes };
