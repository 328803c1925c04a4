import { Link } from 'react-router';
import { returnTo } from '../auth/return-to';

/**
 * Where people look for changing their password. The form itself stays on its own page (the name
 * in the header leads there too), which brings them back here afterwards.
 */
export function PasswordSection() {
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <div className="card admin-form">
        <p>Changing it signs out your other sessions; this one stays signed in.</p>
        <div className="actions">
          <Link className="button" to="/change-password" state={returnTo('/security')}>Change password</Link>
        </div>
      </div>
    </section>
  );
}
