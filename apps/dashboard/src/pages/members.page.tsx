import {
  AppError,
  changeMemberRole,
  createInvitation,
  foundOr404,
  listMembers,
  removeMember,
  resetMemberTwoFactor,
  revokeInvitation,
  setOrganizationRequiresTwoFactor,
  type Invitation,
  type Member,
  type Role,
} from '@tidings/core';
import type { Context } from 'hono';
import { showOnceAt, takeReveal } from '../auth/reveal.ts';
import { canManage, type DashEnv } from '../env.ts';
import { Field, fieldErrorsOf, FormCard, type FieldErrors } from '../views/form.tsx';
import { confirmedAction } from '../views/confirm-page.tsx';
import { CsrfField } from '../views/layout.tsx';
import { Table } from '../views/list.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { RevealCard } from '../views/reveal-card.tsx';
import { flashRedirect, orgOf, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/settings/members';
const ROLES: Role[] = ['member', 'operator', 'owner'];

type Env = Context<DashEnv>;

function InviteForm({ c, errors, email }: { c: Env; errors: FieldErrors; email?: string }) {
  const isOwner = c.var.signedIn!.membership.role === 'owner';
  return (
    <FormCard c={c} id="invite-title" title="Invite someone" action={`${BASE}/invitations`} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="email" label="Email" type="email" errors={errors} value={email} placeholder="teammate@example.com" required />
        <label>
          Role
          <select name="role">
            {ROLES.filter((role) => isOwner || role !== 'owner').map((role) => (
              <option value={role}>{role === 'member' ? 'Member: reads' : role === 'operator' ? 'Operator: manages' : 'Owner'}</option>
            ))}
          </select>
        </label>
        <button type="submit">Create invitation link</button>
      </div>
    </FormCard>
  );
}

// Owners change roles and remove people; the core keeps the last owner.
function MembersTable({ c, members }: { c: Env; members: Member[] }) {
  const isOwner = c.var.signedIn!.membership.role === 'owner';
  return (
    <Table headers={['Name', 'Email', 'Role', 'Two-factor', 'Joined']} hasActions={isOwner}>
      {members.map((m) => (
        <tr>
          <td class="name">{m.name ?? <span class="muted">—</span>}</td>
          <td>{m.email}</td>
          <td>
            {isOwner ? (
              <form method="post" action={`${BASE}/${m.userId}/role`} class="actions member-role">
                <CsrfField c={c} />
                <select name="role" aria-label={`Role of ${m.email}`} data-autosubmit>
                  {ROLES.map((role) => (
                    <option value={role} selected={role === m.role}>
                      {role}
                    </option>
                  ))}
                </select>
                <button type="submit" class="outline small secondary">
                  Change
                </button>
              </form>
            ) : (
              <span class="role">{m.role}</span>
            )}
          </td>
          <td class="two-factor">{m.hasTwoFactor ? 'On' : <span class="muted">Off</span>}</td>
          <td>
            <Time at={m.joinedAt} />
          </td>
          {isOwner && (
            <td>
              {m.hasTwoFactor && (
                <a href={`${BASE}/${m.userId}/reset-two-factor`} role="button" class="outline small secondary" aria-label={`Reset two-factor of ${m.email}`}>
                  Reset 2FA…
                </a>
              )}{' '}
              <a href={`${BASE}/${m.userId}/remove`} role="button" class="outline small danger-outline" aria-label={`Remove ${m.email}`}>
                Remove…
              </a>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

// Owners alone decide whether every member must sign in with a second factor.
function TwoFactorRequirement({ c }: { c: Env }) {
  const { membership } = c.var.signedIn!;
  if (membership.role !== 'owner') {
    return membership.requiresTwoFactor ? <p class="muted">{membership.orgName} requires two-factor sign-in of every member.</p> : null;
  }
  return (
    <FormCard c={c} id="require-two-factor-title" title="Two-factor sign-in" action={`${BASE}/two-factor-requirement`} errors={{}}>
      <label>
        <input type="checkbox" name="required" value="on" checked={membership.requiresTwoFactor} />
        Require two-factor sign-in of every member (those without it enrol at their next sign-in, before anything else)
      </label>
      <button type="submit" class="outline small">
        Save
      </button>
    </FormCard>
  );
}

function InvitationsTable({ c, invitations }: { c: Env; invitations: Invitation[] }) {
  if (invitations.length === 0) return <p class="muted">No pending invitations.</p>;
  const manage = canManage(c.var.signedIn);
  return (
    <Table headers={['Email', 'Role', 'Invited', 'Link expires']} hasActions={manage}>
      {invitations.map((invitation) => (
        <tr>
          <td class="name">{invitation.email}</td>
          <td>
            <span class="role">{invitation.role}</span>
          </td>
          <td>
            <Time at={invitation.createdAt} />
          </td>
          <td>
            <Time at={invitation.expiresAt} />
          </td>
          {manage && (
            <td>
              <form method="post" action={`${BASE}/invitations/${invitation.id}/revoke`} class="actions">
                <CsrfField c={c} />
                <button type="submit" class="outline small danger-outline">
                  Revoke
                </button>
              </form>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

async function membersPage(c: Env, options: { errors?: FieldErrors; email?: string; status?: 200 | 400 | 409 } = {}) {
  const { membership } = c.var.signedIn!;
  const { members, invitations } = await listMembers(c.var.deps, membership.orgId);
  const reveal = takeReveal(c, BASE);
  const invited = reveal && invitations.find((i) => i.id === reveal.id);
  // the configured address, never the request's Host header (which whoever sent the request chose)
  const link = reveal && `${c.var.deps.config.publicDashboardUrl.replace(/\/+$/, '')}/invite/${reveal.secret}`;
  return render(
    c,
    <TitledPage c={c} title="Members" intro={<>People who can sign in to {membership.orgName}. Owners and operators manage keys and settings; members read.</>}>
      {invited && link && (
        <RevealCard title={`Invitation for ${invited.email}`} inputId="invite-link" value={link} label="Invitation link">
          <p>Send this link to them. It works once, for 7 days, and will not be shown again.</p>
        </RevealCard>
      )}
      {canManage(c.var.signedIn) && <InviteForm c={c} errors={options.errors ?? {}} email={options.email} />}
      <MembersTable c={c} members={members} />
      <TwoFactorRequirement c={c} />
      <h2 class="section-heading">Pending invitations</h2>
      <InvitationsTable c={c} invitations={invitations} />
    </TitledPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => membersPage(c));

routes.post('/invitations', async (c) => {
  const form = await c.req.parseBody();
  const signedIn = c.var.signedIn!;
  const role = String(form.role ?? 'member') as Role;
  const email = String(form.email ?? '');
  if (!ROLES.includes(role) || (role === 'owner' && signedIn.membership.role !== 'owner')) {
    return membersPage(c, { errors: { form: 'Only owners can invite owners.' }, email, status: 400 });
  }
  try {
    const { invitation, token } = await createInvitation(c.var.deps, signedIn.membership.orgId, { email, role, invitedByUserId: signedIn.user.id });
    return showOnceAt(c, BASE, { id: invitation.id, secret: token, kind: 'invited' });
  } catch (error) {
    return membersPage(c, { errors: fieldErrorsOf(error, ['email']), email, status: 400 });
  }
});

routes.post('/invitations/:id/revoke', async (c) => {
  await revokeInvitation(c.var.deps, orgOf(c), c.req.param('id'));
  return flashRedirect(c, 'The invitation is revoked: its link no longer works.', BASE);
});

/** Owners alone change roles and remove people (operators manage everything else). */
function requireOwner(c: Env): void {
  if (c.var.signedIn!.membership.role !== 'owner') throw new AppError('FORBIDDEN', 'Only owners change roles or remove people');
}

routes.post('/:userId/role', async (c) => {
  requireOwner(c);
  const form = await c.req.parseBody();
  await changeMemberRole(c.var.deps, orgOf(c), c.req.param('userId'), String(form.role ?? ''));
  return flashRedirect(c, `The role is now ${String(form.role)}.`, BASE);
});

/** The member a confirmed action names, for owners only; 404 for someone not in the organization. */
async function ownersMember(c: Context<DashEnv>) {
  requireOwner(c);
  const { members } = await listMembers(c.var.deps, orgOf(c));
  return foundOr404(
    members.find((m) => m.userId === c.req.param('id')),
    'Member',
  );
}

confirmedAction(routes, 'remove', {
  load: ownersMember,
  ask: (member) => ({
    title: `Remove ${member.email}`,
    subtitle: member.name ?? undefined,
    submitLabel: 'Remove from the organization',
    isDangerous: true,
    back: { href: BASE, label: 'Members' },
    children: <p>They can no longer sign in to this organization. Their account stays, with any other organization they belong to; an invitation brings them back.</p>,
  }),
  act: async (c, member) => {
    await removeMember(c.var.deps, orgOf(c), member.userId);
    return flashRedirect(c, 'They are removed from this organization.', BASE);
  },
});

routes.post('/two-factor-requirement', async (c) => {
  requireOwner(c);
  const isRequired = (await c.req.parseBody()).required === 'on';
  // requiring it without one's own would send the owner straight to enrolment: they enrol first, knowingly
  if (isRequired && !c.var.signedIn!.hasTwoFactor) {
    return flashRedirect(c, 'Turn on two-factor sign-in for your own account first (Settings > Account), then require it of everyone.', BASE);
  }
  await setOrganizationRequiresTwoFactor(c.var.deps, orgOf(c), isRequired);
  return flashRedirect(
    c,
    isRequired ? 'Every member now needs two-factor sign-in: those without it enrol at their next sign-in.' : 'Two-factor sign-in is now up to each member.',
    BASE,
  );
});

confirmedAction(routes, 'reset-two-factor', {
  load: ownersMember,
  ask: (member) => ({
    title: `Reset two-factor sign-in of ${member.email}`,
    subtitle: member.name ?? undefined,
    submitLabel: 'Reset two-factor sign-in',
    isDangerous: true,
    back: { href: BASE, label: 'Members' },
    children: (
      <p>
        For a lost phone: their authenticator secret and recovery codes are deleted and every session of theirs ends. They sign in with their password alone and enrol again (at
        once, when this organization requires it).
      </p>
    ),
  }),
  act: async (c, member) => {
    await resetMemberTwoFactor(c.var.deps, orgOf(c), member.userId);
    return flashRedirect(c, `Two-factor sign-in of ${member.email} is reset.`, BASE);
  },
});

/** Settings > Members: the people of the organization, and invitations (a link shown once) for new ones. */
export const membersSettingsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Members', href: BASE, section: 'settings' },
  routes,
};
