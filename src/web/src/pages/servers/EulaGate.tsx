import { useState } from 'react';
import { api } from '../../api/client';
import { ApiProblem } from '../../api/problem';
import { useTemplates } from '../../api/reference-data';
import type { ServerDetail } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';

const eulaUrl = 'https://aka.ms/MinecraftEULA';
/** What the server itself checks for before it runs (Minecraft reads `eula.txt` in its directory). */
const acceptedRe = /^\s*eula\s*=\s*true\s*$/m;

/** Whether the server's `eula.txt` says it was accepted; a missing file has not been. */
async function eulaAccepted(serverId: string): Promise<boolean> {
  try {
    return acceptedRe.test(await api.files.read(serverId, 'eula.txt'));
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 404) return false;
    throw e;
  }
}

/**
 * Start for a server whose template runs only after Mojang's EULA is accepted: before the first
 * start it asks, and on accept writes `eula.txt` through the files API (audited as
 * `server.file.write`) and then starts. `start()` goes straight to `onStart` for other templates
 * and once the file says `eula=true`.
 */
export function useEulaGate(server: ServerDetail, onStart: () => void) {
  const templates = useTemplates();
  const needs = templates.data?.find((t) => t.id === server.software.template)?.eula === true;
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<unknown>();
  const [pending, setPending] = useState(false);
  const run = async (step: () => Promise<void>) => {
    setPending(true);
    setProblem(undefined);
    try {
      await step();
    } catch (e) {
      setProblem(e);
    } finally {
      setPending(false);
    }
  };
  const start = () => (needs ? void run(async () => ((await eulaAccepted(server.id)) ? onStart() : setAsking(true))) : onStart());
  const accept = () => void run(async () => {
    await api.files.write(server.id, 'eula.txt', new Blob([`# Accepted in Cairn: ${eulaUrl}\neula=true\n`]));
    setAsking(false);
    onStart();
  });
  const dialog = <EulaDialog open={asking} pending={pending} problem={problem} onAccept={accept} onCancel={() => setAsking(false)} />;
  return { start, pending, problem: asking ? undefined : problem, dialog };
}

function EulaDialog({ open, pending, problem, onAccept, onCancel }: { open: boolean; pending: boolean; problem: unknown; onAccept: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog open={open} title="Accept the Minecraft EULA" confirmLabel="Accept and start" tone="primary" pending={pending} error={problem} onConfirm={onAccept} onCancel={onCancel}>
      <p>
        This server runs Minecraft, which starts only once its operator accepts the{' '}
        <a href={eulaUrl} target="_blank" rel="noreferrer">Minecraft End User License Agreement</a>. Accepting writes{' '}
        <code>eula=true</code> into the server&apos;s <code>eula.txt</code>; the audit log records who did.
      </p>
    </ConfirmDialog>
  );
}
