import { maxJarBytes } from '../../schemas/catalog-feed.js';
import { Paged } from '../../schemas/common.js';
import { InstallationParams, InstallPlugin, PluginInstallation, PluginListQuery, UpdatePlugin, UploadQuery } from '../../schemas/plugins.js';
import { ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { invalidRequest } from '../../core/errors.js';
import { route } from '../route.js';

const nextStart = 'Takes effect at the server\'s next start; the server\'s generation does not change.';

export const pluginRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/servers/{serverId}/plugins', tag: 'plugins', status: 200,
    summary: 'The server\'s plugin installations, in installation order (`plugins.read`).',
    params: ServerParams, query: PluginListQuery, response: Paged(PluginInstallation),
    handler: async ({ caller, params, query }) => s.plugins.list(caller, params.serverId, query),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/plugins', tag: 'plugins', status: 201,
    summary: 'Install a catalog plugin and the plugins it requires (`plugins.install`).',
    description: `Without \`versionId\`, the newest version that suits the server (its template's platform and its game version) and is not denylisted. An unsuitable version is \`incompatible_plugin\` unless \`force\` (then \`compatibilityConfirmed: false\`); a denylisted one is \`plugin_denied\`; a required plugin missing from the catalog is \`conflict\`. Required plugins the server lacks are installed with \`dependency: true\`. Installing a plugin present only as a dependency makes it an installation of its own. ${nextStart}`,
    params: ServerParams, body: InstallPlugin, response: PluginInstallation, errors: ['incompatible_plugin', 'plugin_denied', 'conflict', 'insufficient_storage', 'plugin_unavailable'],
    audit: { action: 'plugin.install', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.plugins.install(caller, params.serverId, body, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/plugins/upload', tag: 'plugins', status: 201,
    summary: 'Upload a plugin jar (`plugins.install`), at most 64 MiB.',
    description: `The jar must declare a plugin in \`<platform>-plugin.yml\` or \`plugin.yml\` (Velocity: \`velocity-plugin.json\` first) with a name and a version; it is installed as \`upload:<name>\` and replaces an earlier upload of the same name. Uploads are unverified and their compatibility is not checked. A larger body is \`too_large\`; a jar that is not readable, declares no plugin, or would inflate beyond the jar limits (65,536 entries, 512 MiB in all, an entry over 1 MiB inflating more than 100 times) is \`invalid_request\`. ${nextStart}`,
    params: ServerParams, query: UploadQuery, rawBody: { mediaType: 'application/octet-stream', maxBytes: maxJarBytes }, response: PluginInstallation,
    errors: ['too_large', 'insufficient_storage'],
    audit: { action: 'plugin.upload', targetKind: 'server' },
    handler: async ({ caller, params, query, ctx, audit, upload }) => {
      if (!ctx.request.is('application/octet-stream')) throw invalidRequest('Content-Type must be application/octet-stream.');
      const declared = ctx.get('content-length');
      return s.plugins.upload(caller, params.serverId, query.fileName, upload, declared === '' ? undefined : Number(declared), audit);
    },
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/plugins/{installationId}/update', tag: 'plugins', status: 200,
    summary: 'Change a catalog installation\'s version (`plugins.update`); default: the newest compatible one.',
    description: `Same compatibility and denylist rules as install; newly required plugins are installed, dependencies no longer required are removed. An uploaded plugin is replaced by uploading again. ${nextStart}`,
    params: InstallationParams, body: UpdatePlugin, response: PluginInstallation, errors: ['incompatible_plugin', 'plugin_denied', 'plugin_unavailable'],
    audit: { action: 'plugin.update', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.plugins.update(caller, params.serverId, params.installationId, body, audit),
  }),
  route({
    method: 'DELETE', path: '/servers/{serverId}/plugins/{installationId}', tag: 'plugins', status: 204,
    summary: 'Remove a plugin (`plugins.delete`), with the dependencies nothing else requires.',
    description: `Refused with \`plugin_required\` while another installed plugin requires it. ${nextStart}`,
    params: InstallationParams, errors: ['plugin_required'],
    audit: { action: 'plugin.delete', targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.plugins.remove(caller, params.serverId, params.installationId, audit),
  }),
];
