import type { Command } from 'commander';
import type { SoftwareSyncResult } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { document, formatList } from '../output.js';
import { syncSourceView } from '../views.js';

/** `cairn sync software`: reads every upstream's versions now (global administrators). */
export function registerSync(program: Command): void {
  withGlobals(program.command('sync'))
    .description('sync now: software (every upstream\'s versions; global administrators)')
    .argument('<what>', 'software')
    .action(async (what: string, _opts: unknown, cmd: Command) => {
      if (what !== 'software') throw new UsageError(`unknown thing to sync "${what}" (one of software)`);
      const { client, format } = await connect(cmd);
      const answer = await client.post<SoftwareSyncResult>('/software/sync');
      // A source that failed keeps its last good list: the answer still succeeded, and its row says why.
      print(format === 'json' || format === 'yaml' ? document(answer, format) : formatList(syncSourceView, answer.sources, format));
    });
}
