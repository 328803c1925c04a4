import type { Template } from '../../../shared/templates.js';
import type { InstallerOutputRecord } from '../../schemas/installer-output.js';
import type { ListedVersionRecord } from '../../schemas/software.js';

/** Whether the template's download is an installer the Controller runs (NeoForge, Forge). */
export const runsInstaller = (template: Template): boolean => template.install.source === 'upstream' && template.install.installer === true;

/**
 * An installer template's choice as the Agent installs it: the tree the installer's run left,
 * started with the arguments it named, spliced before the template's last argument (`nogui`).
 * A build whose installer has not run yet cannot be sent (the catalog's `prepare` runs it).
 */
export function resolveInstallerChoice(
  template: Template, version: string, build: string | undefined, listed: ListedVersionRecord,
): { template: Template; build: string; produced: InstallerOutputRecord['produced'] } | { problem: string } {
  const id = build ?? listed.latestBuild ?? listed.builds?.[0]?.id;
  const chosen = listed.builds?.find((b) => b.id === id);
  if (!chosen) return { problem: `${template.id} ${version} lists no build ${build ?? '(none)'}` };
  const output = chosen.installed;
  if (!output) return { problem: `${template.id} ${version} build ${chosen.id}: its installer has not run on the Controller yet` };
  const java = listed.java ?? template.java;
  const args = template.run.args;
  return {
    template: {
      ...template,
      versions: [version],
      ...(java ? { java } : {}),
      install: { source: 'tree', tree: output.tree, build: chosen.id },
      run: { ...template.run, args: [...args.slice(0, -1), ...output.args, ...args.slice(-1)] },
    },
    build: chosen.id,
    produced: output.produced,
  };
}
