import { apiKeysPage } from './api-keys.page.tsx';
import { emailDomainsPage } from './email-domains.page.tsx';
import { invitePage } from './invite.page.tsx';
import { membersSettingsPage } from './members.page.tsx';
import type { DashboardPage } from './page.ts';
import { phoneNumbersPage } from './phone-numbers.page.tsx';
import { webhooksPage } from './webhooks.page.tsx';

/**
 * Every page behind sign-in, in sidebar order within each section. The first one with a navigation entry is the
 * home page. Messages, sandbox inbox, webhooks, domains and numbers are added here as they are built.
 */
export const pages: DashboardPage[] = [apiKeysPage, membersSettingsPage, invitePage, webhooksPage, emailDomainsPage, phoneNumbersPage];
