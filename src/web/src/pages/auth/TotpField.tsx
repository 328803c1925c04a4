import { useState } from 'react';
import { isProblem } from '../../api/problem';
import { TextField } from '../../components/Field';

interface TotpFieldProps {
  /** The sign-in mutation's last error: `totp_required` brings the field up. */
  error: unknown;
  value: string;
  onChange: (value: string) => void;
}

export const isTotpRequired = (error: unknown) => isProblem(error) && error.code === 'totp_required';

/**
 * The second factor on the sign-in form, shown once the API has said the account needs one, and
 * kept while the user retries (a wrong code answers `invalid_credentials`, not `totp_required`, with a
 * detail naming `body.totpCode`, so the field itself says the code is wrong or expired).
 */
export function TotpField({ error, value, onChange }: TotpFieldProps) {
  const [asked, setAsked] = useState(false);
  if (!asked && isTotpRequired(error)) setAsked(true);
  if (!asked && !isTotpRequired(error)) return null;
  return (
    <TextField
      label="Authentication code" field="totpCode" error={error} value={value} onChange={(e) => onChange(e.target.value)}
      autoComplete="one-time-code" spellCheck={false} autoFocus required
      hint="The 6-digit code your authenticator app shows, or one of your recovery codes."
    />
  );
}
