import { apiKeysPage } from './api-keys.page.tsx';
import { emailDomainsPage } from './email-domains.page.tsx';
import { invitePage } from './invite.page.tsx';
import { membersSettingsPage } from './members.page.tsx';
import { messagesPage } from './messages.page.tsx';
import { overviewDashboardPage } from './overview.page.tsx';
import type { DashboardPage } from './page.ts';
import { sandboxPage } from './sandbox.page.tsx';
import { phoneNumbersPage } from './phone-numbers.page.tsx';
import { webhooksPage } from './webhooks.page.tsx';

/**
 * Every page behind sign-in, in sidebar order within each section. The first one with a navigation entry is the
 * home page.
 */
export const pages: DashboardPage[] = [
  apiKeysPage,
  membersSettingsPage,
  invitePage,
  overviewDashboardPage,
  messagesPage,
  sandboxPage,
  webhooksPage,
  emailDomainsPage,
  phoneNumbersPage,
];
