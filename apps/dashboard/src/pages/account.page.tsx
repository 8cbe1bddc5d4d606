import { beginTwoFactorEnrolment, changePassword, confirmTwoFactorEnrolment, disableOwnTwoFactor, twoFactorStatus } from '@tidings/core';
import type { Context } from 'hono';
import QRCode from 'qrcode';
import { showOnceAt, takeReveal } from '../auth/reveal.ts';
import type { DashEnv } from '../env.ts';
import { Field, fieldErrorsOf, NewPasswordField, FormCard, type FieldErrors } from '../views/form.tsx';
import { CsrfField } from '../views/layout.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render } from '../views/render.tsx';
import { RevealCard } from '../views/reveal-card.tsx';
import { formOf } from './auth.page.tsx';
import { flashRedirect, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/settings/account';
/** Where two-factor enrolment happens; people an organization requires it of are sent here first. */
export const TWO_FACTOR_ENROLMENT_PATH = `${BASE}/two-factor`;

type Env = Context<DashEnv>;

async function renderAccountPage(c: Env, options: { errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const { user } = c.var.signedIn!;
  const status = await twoFactorStatus(c.var.deps, user.id);
  const reveal = takeReveal(c, BASE);
  const errors = options.errors ?? {};
  return render(
    c,
    <TitledPage c={c} title="Account" intro={<>{user.email}: your password and second factor, for every organization you belong to.</>}>
      {reveal?.kind === 'recovery-codes' && (
        <RevealCard
          id="recovery-codes"
          title="Two-factor sign-in is on: your recovery codes"
          inputId="recovery-codes-value"
          value={reveal.secret}
          values={reveal.secret.split(' ')}
          label="Recovery codes"
        >
          <p>Keep these ten codes somewhere safe. Each one signs you in once in place of a code from your phone. They will not be shown again.</p>
        </RevealCard>
      )}
      <section class="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        {status.isEnabled ? (
          <>
            <p id="two-factor-state">
              On. Signing in asks for a code from your authenticator app after your password. {status.recoveryCodesLeft} recovery code
              {status.recoveryCodesLeft === 1 ? '' : 's'} left. Lost your phone? An owner of your organization can reset it.
            </p>
            <form method="post" action={`${BASE}/two-factor/off`} class="turn-off-two-factor">
              <CsrfField c={c} />
              <Field name="disablePassword" label="Your password, to turn it off" type="password" errors={errors} autocomplete="current-password" required />
              <button type="submit" class="secondary">
                Turn off two-factor sign-in
              </button>
            </form>
          </>
        ) : (
          <>
            <p id="two-factor-state">Off. Add a code from an authenticator app (1Password, Google Authenticator, Authy...) to your password.</p>
            <a href={TWO_FACTOR_ENROLMENT_PATH} role="button">
              Turn on two-factor sign-in
            </a>
          </>
        )}
      </section>
      <FormCard c={c} id="password-title" title="Change your password" action={`${BASE}/password`} errors={errors}>
        <Field name="currentPassword" label="Current password" type="password" errors={errors} autocomplete="current-password" required />
        <NewPasswordField label="New password" errors={errors} note="Your other sessions end; this one stays." />
        <button type="submit">Change password</button>
      </FormCard>
    </TitledPage>,
    options.status ?? 200,
  );
}

async function enrolmentPage(c: Env, errors: FieldErrors = {}, status: 200 | 400 = 200) {
  const signedIn = c.var.signedIn!;
  const { secret, uri } = await beginTwoFactorEnrolment(c.var.deps, signedIn.user.id);
  // drawn on the server: the secret never goes to a third-party QR service, and the page needs no script
  const qr = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  const required = signedIn.membership.requiresTwoFactor;
  return render(
    c,
    <TitledPage
      c={c}
      title="Turn on two-factor sign-in"
      intro={
        <>
          {required ? `${signedIn.membership.orgName} requires a second factor of every member. ` : ''}Scan the code with your authenticator app, then enter the 6-digit code it
          shows.
        </>
      }
    >
      <section class="card" aria-labelledby="scan-title">
        <h2 id="scan-title">1. Scan</h2>
        <img src={`data:image/svg+xml;base64,${Buffer.from(qr).toString('base64')}`} alt="QR code of your two-factor secret" width={200} height={200} id="totp-qr" />
        <p>
          Or type this key: <code id="totp-secret">{secret}</code>
        </p>
      </section>
      <FormCard c={c} id="confirm-title" title="2. Enter the code" action={TWO_FACTOR_ENROLMENT_PATH} errors={errors}>
        <Field name="code" label="Code" errors={errors} autocomplete="one-time-code" required autofocus />
        <button type="submit">Turn on</button>
      </FormCard>
      <form method="post" action="/sign-out">
        <CsrfField c={c} />
        <button type="submit" class="outline secondary small">
          Sign out
        </button>
      </form>
    </TitledPage>,
    status,
  );
}

const routes = pageRoutes();

routes.get('/', (c) => renderAccountPage(c));

routes.post('/password', async (c) => {
  const form = await formOf(c);
  const signedIn = c.var.signedIn!;
  try {
    const { signedOut } = await changePassword(c.var.deps, signedIn.user.id, {
      currentPassword: form.currentPassword ?? '',
      password: form.password ?? '',
      keepSessionId: signedIn.sessionId,
    });
    return flashRedirect(c, `Your password is changed. ${signedOut} other session${signedOut === 1 ? '' : 's'} ended.`, BASE);
  } catch (error) {
    return renderAccountPage(c, { errors: fieldErrorsOf(error, ['currentPassword', 'password']), status: 400 });
  }
});

routes.post('/two-factor/off', async (c) => {
  const form = await formOf(c);
  try {
    await disableOwnTwoFactor(c.var.deps, c.var.signedIn!.user.id, form.disablePassword ?? '');
    return flashRedirect(c, 'Two-factor sign-in is off.', BASE);
  } catch (error) {
    const errors = fieldErrorsOf(error, ['password']);
    return renderAccountPage(c, { errors: errors.password ? { disablePassword: errors.password } : errors, status: 400 });
  }
});

routes.get('/two-factor', async (c) => {
  if (c.var.signedIn!.hasTwoFactor) return flashRedirect(c, 'Two-factor sign-in is already on.', BASE);
  return enrolmentPage(c);
});

routes.post('/two-factor', async (c) => {
  const form = await formOf(c);
  try {
    const { recoveryCodes } = await confirmTwoFactorEnrolment(c.var.deps, c.var.signedIn!.user.id, form.code ?? '');
    return showOnceAt(c, BASE, { id: 'recovery-codes', secret: recoveryCodes.join(' '), kind: 'recovery-codes' });
  } catch (error) {
    return enrolmentPage(c, fieldErrorsOf(error, ['code']), 400);
  }
});

/** Settings > Account: the signed-in person's password and two-factor sign-in. */
export const accountSettingsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Account', href: BASE, section: 'settings' },
  routes,
};
