import { createBrowserRouter, Navigate } from 'react-router';
import { AuditPage } from '../pages/audit/AuditPage';
import { ChangePasswordPage } from '../pages/auth/ChangePasswordPage';
import { ResetPasswordPage } from '../pages/auth/ResetPasswordPage';
import { SignInPage } from '../pages/auth/SignInPage';
import { BackupsPage } from '../pages/backups/BackupsPage';
import { NetworkPage } from '../pages/network/NetworkPage';
import { NodesPage } from '../pages/nodes/NodesPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { OverviewPage } from '../pages/overview/OverviewPage';
import { RolesPage } from '../pages/roles/RolesPage';
import { NewServerPage } from '../pages/servers/NewServerPage';
import { ServersPage } from '../pages/servers/ServersPage';
import { SetupPage } from '../pages/setup/SetupPage';
import { SsoPage } from '../pages/sso/SsoPage';
import { TeamsPage } from '../pages/teams/TeamsPage';
import { TokensPage } from '../pages/tokens/TokensPage';
import { UsersPage } from '../pages/users/UsersPage';
import { Layout } from './Layout';
import { RequireUser } from './RequireUser';

/** Every page of the UI and its address; the Controller answers the app's HTML for each. */
export const createRouter = () =>
  createBrowserRouter([
    { path: '/setup', element: <SetupPage /> },
    { path: '/sign-in', element: <SignInPage /> },
    { path: '/reset-password', element: <ResetPasswordPage /> },
    { path: '/change-password', element: <ChangePasswordPage /> },
    {
      element: <RequireUser />,
      children: [{
        element: <Layout />,
        children: [
          { index: true, element: <Navigate to="/servers" replace /> },
          { path: 'overview', element: <OverviewPage /> },
          { path: 'servers', element: <ServersPage /> },
          { path: 'servers/new', element: <NewServerPage /> },
          // The server page brings xterm.js and, on demand, CodeMirror: loaded when first opened.
          { path: 'servers/:serverId/:tab?', lazy: async () => ({ Component: (await import('../pages/servers/ServerPage')).ServerPage }) },
          { path: 'nodes', element: <NodesPage /> },
          { path: 'network', element: <NetworkPage /> },
          { path: 'backups', element: <BackupsPage /> },
          { path: 'teams', element: <TeamsPage /> },
          { path: 'users', element: <UsersPage /> },
          { path: 'roles', element: <RolesPage /> },
          { path: 'sso', element: <SsoPage /> },
          { path: 'tokens', element: <TokensPage /> },
          // The QR code library is needed on this page only: loaded when first opened.
          { path: 'security', lazy: async () => ({ Component: (await import('../pages/account/SecurityPage')).SecurityPage }) },
          { path: 'audit', element: <AuditPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      }],
    },
  ]);
