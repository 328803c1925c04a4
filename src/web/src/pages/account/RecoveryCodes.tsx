import { useEffect, useState } from 'react';
import { CopyField } from '../../components/CopyField';
import { ShownOnce } from '../../components/ShownOnce';

/** The file a person keeps: the codes one a line, with what they are, since the file outlives this page. */
const fileText = (codes: string[], username: string) =>
  [`Cairn recovery codes for ${username}`, 'Each code signs you in once without your authenticator app.', '', ...codes, ''].join('\n');

/** A link to the codes as a text file, made in the browser: the codes never travel again. */
function useTextFileUrl(text: string): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [text]);
  return url;
}

/** The recovery codes, shown once after TOTP is turned on: read, copied or downloaded. */
export function RecoveryCodes({ codes, username, onDone }: { codes: string[]; username: string; onDone: () => void }) {
  const url = useTextFileUrl(fileText(codes, username));
  return (
    <ShownOnce title="Your recovery codes" onDone={onDone}>
      <p>Each code signs you in once without your authenticator app. Keep them somewhere safe, away from your phone.</p>
      <ol className="recovery-codes">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ol>
      <CopyField label="Recovery codes" value={codes.join('\n')} />
      {url ? <p><a className="button" href={url} download="cairn-recovery-codes.txt">Download codes</a></p> : null}
    </ShownOnce>
  );
}
