import { Navigate, Outlet, useLocation } from 'react-router';
import { Loading } from '../components/Loading';
import { ProblemAlert } from '../components/ProblemAlert';
import { useMe, useSetupStatus } from './session';

/**
 * The gate of every signed-in page: first run goes to setup, nobody signed in goes to sign in
 * (and comes back afterwards), a required password change comes before anything else.
 */
export function RequireUser() {
  const me = useMe();
  const location = useLocation();
  const setup = useSetupStatus(me.data === null);
  if (me.error) return <main className="centered"><ProblemAlert error={me.error} /></main>;
  if (me.data === undefined) return <main className="centered"><Loading what="your session" /></main>;
  if (me.data === null) {
    if (setup.error) return <main className="centered"><ProblemAlert error={setup.error} /></main>;
    if (!setup.data) return <main className="centered"><Loading what="the Controller" /></main>;
    if (!setup.data.done) return <Navigate to="/setup" replace />;
    const from = location.pathname + location.search;
    return <Navigate to={from === '/' ? '/sign-in' : `/sign-in?from=${encodeURIComponent(from)}`} replace />;
  }
  if (me.data.passwordChangeRequired) return <Navigate to="/change-password" replace />;
  return <Outlet />;
}
