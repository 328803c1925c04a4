import type { ServerDetail } from '../../../api/types';

export function BackupsTab({ server }: { server: ServerDetail }) {
  return (
    <div className="notice">
      <p>Backups of {server.name} come with their own issue: taking one now, schedules, where they are kept, and restoring one, with progress shown here.</p>
    </div>
  );
}
