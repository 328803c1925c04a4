import { fixedVersions, placeholdersIn, templatePlaceholders, type Template } from './templates.js';

/** Rules across fields that a JSON schema cannot say; the first broken one, or undefined. */
export function checkTemplateRules(t: Template): string | undefined {
  if (t.kind === 'PROXY' && t.networkMember) return 'networkMember: a PROXY cannot be a network member';
  return checkPattern('readyPattern', t.readyPattern) ?? (t.backup && checkPattern('backup.waitFor', t.backup.waitFor))
    ?? checkPlaceholders(t) ?? checkArtifacts(t) ?? checkNetwork(t);
}

function checkPattern(field: string, pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return `${field}: not a valid regular expression (${(error as Error).message})`;
  }
}

function checkNetwork(t: Template): string | undefined {
  const n = t.network;
  if (!n) return undefined;
  if ((n.memberConfig || n.standaloneConfig) && !t.networkMember) return 'network.memberConfig: only for network members';
  if ((n.memberConfig || n.standaloneConfig) && t.config.format !== 'properties') return 'network.memberConfig: needs config.format properties';
  const keys = (r: Record<string, string> | undefined) => Object.keys(r ?? {}).sort().join();
  if (keys(n.memberConfig) !== keys(n.standaloneConfig)) return 'network.standaloneConfig: must name the keys of memberConfig';
  if (n.forwardingSecret?.format === 'paper-global-yaml' && !t.networkMember) return 'network.forwardingSecret: paper-global-yaml is for network members';
  if (n.forwardingSecret?.format === 'secret-file' && t.kind !== 'PROXY') return 'network.forwardingSecret: secret-file is for proxies';
  if (n.reloadCommand && t.kind !== 'PROXY') return 'network.reloadCommand: only for proxies';
  return undefined;
}

function checkPlaceholders(t: Template): string | undefined {
  const fields: [string, string][] = [
    ['run.command', t.run.command],
    ...t.run.args.map((a, i): [string, string] => [`run.args.${i}`, a]),
    ...Object.entries(t.run.env ?? {}).map(([k, v]): [string, string] => [`run.env.${k}`, v]),
    ...Object.entries(t.config.managed).map(([k, v]): [string, string] => [`config.managed.${k}`, v]),
  ];
  for (const [field, text] of fields) {
    const unknown = placeholdersIn(text).find((p) => !(templatePlaceholders as readonly string[]).includes(p));
    if (unknown) return `${field}: unknown placeholder {${unknown}} (known: ${templatePlaceholders.map((p) => `{${p}}`).join(', ')})`;
  }
  return undefined;
}

function checkArtifacts(t: Template): string | undefined {
  const versions = fixedVersions(t);
  if (t.install.source === 'upstream') return versions ? 'install: "upstream" needs versions from an upstream ({"source": …})' : undefined;
  if (!versions) return 'versions: an upstream\'s versions need install.source "upstream"';
  if (t.install.source !== 'download') return t.install.source === 'tree' && versions.length !== 1 ? 'install.tree: a tree is one version\'s software' : undefined;
  const { artifacts } = t.install;
  const missing = versions.find((v) => !(v in artifacts));
  if (missing) return `install.artifacts: no artifact for version "${missing}"`;
  const extra = Object.keys(artifacts).find((v) => !versions.includes(v));
  if (extra) return `install.artifacts.${extra}: not one of versions`;
  const unchecked = Object.entries(artifacts).find(([, a]) => a.sha256 === undefined && a.sha1 === undefined);
  if (unchecked) return `install.artifacts.${unchecked[0]}: needs sha256 or sha1`;
  const companion = (t.install.companions ?? []).findIndex((c) => c.sha256 === undefined && c.sha1 === undefined);
  if (companion >= 0) return `install.companions.${companion}: needs sha256 or sha1`;
  return undefined;
}
