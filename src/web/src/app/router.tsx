import { createBrowserRouter, Navigate } from 'react-router';
import { SignInPage } from '../pages/auth/SignInPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { ServersPage } from '../pages/servers/ServersPage';
import { Layout } from './Layout';
import { RequireUser } from './RequireUser';

/**
 * Every page of the UI and its address; the Controller answers the app's HTML for each. Only the
 * sign-in page and the servers list (where a session lands) are in the first load; every other
 * page is fetched when first opened.
 */
export const createRouter = () =>
  createBrowserRouter([
    { path: '/setup', lazy: async () => ({ Component: (await import('../pages/setup/SetupPage')).SetupPage }) },
    { path: '/sign-in', element: <SignInPage /> },
    { path: '/reset-password', lazy: async () => ({ Component: (await import('../pages/auth/ResetPasswordPage')).ResetPasswordPage }) },
    { path: '/change-password', lazy: async () => ({ Component: (await import('../pages/auth/ChangePasswordPage')).ChangePasswordPage }) },
    {
      element: <RequireUser />,
      children: [{
        element: <Layout />,
        children: [
          { index: true, element: <Navigate to="/servers" replace /> },
          { path: 'overview', lazy: async () => ({ Component: (await import('../pages/overview/OverviewPage')).OverviewPage }) },
          { path: 'servers', element: <ServersPage /> },
          { path: 'servers/new', lazy: async () => ({ Component: (await import('../pages/servers/NewServerPage')).NewServerPage }) },
          // The server page brings xterm.js and, on demand, CodeMirror: loaded when first opened.
          { path: 'servers/:serverId/:tab?', lazy: async () => ({ Component: (await import('../pages/servers/ServerPage')).ServerPage }) },
          { path: 'nodes', lazy: async () => ({ Component: (await import('../pages/nodes/NodesPage')).NodesPage }) },
          { path: 'network', lazy: async () => ({ Component: (await import('../pages/network/NetworkPage')).NetworkPage }) },
          { path: 'backups', lazy: async () => ({ Component: (await import('../pages/backups/BackupsPage')).BackupsPage }) },
          { path: 'webhooks', lazy: async () => ({ Component: (await import('../pages/webhooks/WebhooksPage')).WebhooksPage }) },
          { path: 'teams', lazy: async () => ({ Component: (await import('../pages/teams/TeamsPage')).TeamsPage }) },
          { path: 'users', lazy: async () => ({ Component: (await import('../pages/users/UsersPage')).UsersPage }) },
          { path: 'roles', lazy: async () => ({ Component: (await import('../pages/roles/RolesPage')).RolesPage }) },
          { path: 'sso', lazy: async () => ({ Component: (await import('../pages/sso/SsoPage')).SsoPage }) },
          { path: 'tokens', lazy: async () => ({ Component: (await import('../pages/tokens/TokensPage')).TokensPage }) },
          // The QR code library is needed on this page only: loaded when first opened.
          { path: 'security', lazy: async () => ({ Component: (await import('../pages/account/SecurityPage')).SecurityPage }) },
          { path: 'audit', lazy: async () => ({ Component: (await import('../pages/audit/AuditPage')).AuditPage }) },
          { path: '*', element: <NotFoundPage /> },
        ],
      }],
    },
  ]);
