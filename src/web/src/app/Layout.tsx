import { NavLink, Outlet } from 'react-router';
import { useMe, useSignOut } from './session';

const sections = [
  ['/overview', 'Overview'],
  ['/servers', 'Servers'],
  ['/nodes', 'Nodes'],
  ['/network', 'Network'],
  ['/backups', 'Backups'],
  ['/webhooks', 'Webhooks'],
  ['/teams', 'Teams'],
  ['/users', 'Users'],
  ['/roles', 'Roles'],
  ['/sso', 'Single sign-on'],
  ['/audit', 'Audit log'],
] as const;

/** The frame of every signed-in page: the main navigation, the account links and Sign out. */
export function Layout() {
  const me = useMe();
  const signOut = useSignOut();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <span className="brand">Cairn</span>
        <nav aria-label="Main" className="main-nav">
          <ul>
            {sections.map(([to, label]) => (
              <li key={to}><NavLink to={to}>{label}</NavLink></li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <NavLink to="/change-password" className="who" title="Your account: change your password">{me.data?.displayName}</NavLink>
          <NavLink to="/tokens">API tokens</NavLink>
          <NavLink to="/security">Security</NavLink>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
