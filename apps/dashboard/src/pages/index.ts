import { accountSettingsPage } from './account.page.tsx';
import { apiKeysPage } from './api-keys.page.tsx';
import { auditLogSettingsPage } from './audit-log.page.tsx';
import { contactsPage } from './contacts.page.tsx';
import { contactsImportPage } from './contacts-import.page.tsx';
import { broadcastsPage } from './broadcasts.page.tsx';
import { emailDomainsPage } from './email-domains.page.tsx';
import { invitePage } from './invite.page.tsx';
import { membersSettingsPage } from './members.page.tsx';
import { messagesPage } from './messages.page.tsx';
import { overviewDashboardPage } from './overview.page.tsx';
import type { DashboardPage } from './page.ts';
import { sandboxPage } from './sandbox.page.tsx';
import { templatesPage } from './templates.page.tsx';
import { phoneNumbersPage } from './phone-numbers.page.tsx';
import { segmentsPage } from './segments.page.tsx';
import { suppressionsPage } from './suppressions.page.tsx';
import { topicsPage } from './topics.page.tsx';
import { verificationsDashboardPage } from './verifications.page.tsx';
import { webhooksPage } from './webhooks.page.tsx';

/**
 * Every page behind sign-in, in sidebar order within each section. The first one with a navigation entry is the
 * home page, where signing in lands: the overview.
 */
export const pages: DashboardPage[] = [
  overviewDashboardPage,
  apiKeysPage,
  membersSettingsPage,
  auditLogSettingsPage,
  accountSettingsPage,
  invitePage,
  messagesPage,
  sandboxPage,
  verificationsDashboardPage,
  webhooksPage,
  emailDomainsPage,
  phoneNumbersPage,
  contactsImportPage, // before contactsPage, whose /contacts/:id would take /contacts/import
  contactsPage,
  segmentsPage,
  topicsPage,
  suppressionsPage,
  templatesPage,
  broadcastsPage,
];
