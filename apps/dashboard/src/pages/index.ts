import { apiKeysPage } from './api-keys.page.tsx';
import { invitePage } from './invite.page.tsx';
import { membersSettingsPage } from './members.page.tsx';
import { messagesPage } from './messages.page.tsx';
import type { DashboardPage } from './page.ts';
import { sandboxPage } from './sandbox.page.tsx';

/**
 * Every page behind sign-in, in sidebar order within each section. The first one with a navigation entry is the
 * home page. Messages, sandbox inbox, webhooks, domains and numbers are added here as they are built.
 */
export const pages: DashboardPage[] = [apiKeysPage, membersSettingsPage, invitePage, messagesPage, sandboxPage];
