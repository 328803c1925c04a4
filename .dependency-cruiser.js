/**
 * The layer check (`npm run lint:layers`): the arrows of README "How it is built" as rules, so a
 * wrong import fails CI. Rules name only `src/` as their origin: tests and benches may import
 * anything. Type-only imports count (tsPreCompilationDeps), because a type import still couples
 * the layers; the exceptions are spelled out in `web-only-api-types` and `cli-only-api-types`.
 */

/** Node built-ins that reach outside the process (files, sockets, processes, the host). */
const ioCoreModules = '^(node:)?(child_process|cluster|dgram|diagnostics_channel|dns|fs|http|http2|https|inspector|module|net|os|perf_hooks|process|readline|repl|tls|tty|v8|vm|worker_threads)(/promises)?$';

const controller = '^src/controller/';
/** The layers, the only folders at src/controller's root; beside them stand only the program's entry files. */
const controllerLayers = ['actors', 'adapters', 'core', 'domain', 'http', 'link', 'metrics', 'program', 'schemas', 'security', 'services', 'store'];
const controllerEntryFiles = '(controller|main)[.]ts$';
const machines = '^src/(controller/actors/[^/]+-machine|agent/reconciler/server-machine)[.]ts$';

/**
 * The capabilities of services/ in order, lowest first: a capability imports only those of its own
 * level and below, so each can be read and tested with only what is under it. A seam two levels
 * share (timers, sealing, the Node directory, desired changes, placement rules) lives in core/, security/ or domain/,
 * or in a low capability of its own (placement/); the calls to Agents every level makes are in
 * link/node-calls.ts, below the services. A capability's adapters (adapters/<capability>/) stand
 * at its level: the order holds for services/ and adapters/ alike.
 */
const capabilityLevels = [
  ['leases'],
  ['audit', 'placement'],
  ['identity'],
  ['nodes', 'servers', 'software'],
  ['files', 'console', 'plugins', 'network', 'agent-link'],
  ['backups', 'transfers'],
  ['workflows'],
  // Runs tasks through the capabilities below it, stopped by the workflows' signal.
  ['schedules'],
  // Hears every capability below it (servers, backups, workflows, schedules, Nodes) and is heard by none.
  ['notifications'],
];

/** One rule per level but the top: none of its capabilities imports one of a higher level. */
const capabilityOrder = capabilityLevels.slice(0, -1).map((level, i) => {
  const higher = capabilityLevels.slice(i + 1).flat();
  return {
    name: `capability-order-${level.join('-')}`,
    comment: `Capabilities are ordered (capabilityLevels): ${level.join(', ')} (services and adapters) import nothing from ${higher.join(', ')}. Move what both need down (core/, security/, domain/) instead.`,
    severity: 'error',
    from: { path: `${controller}(services|adapters)/(${level.join('|')})/` },
    to: { path: `${controller}(services|adapters)/(${higher.join('|')})/` },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included: a cycle closed by `import type` still ties two modules into one unit that cannot be read, tested or moved apart. Break it by moving the shared type or constant into a lower module both import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the checker cannot resolve would escape every other rule.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-test',
      comment: 'Product code never imports tests or benches.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'shared-only-shared',
      comment: 'src/shared is what the Controller, the Agent and the CLI have in common: it imports nothing else in src/.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'agent-only-shared',
      comment: 'The Agent shares only src/shared (where the proto-generated code lives) with the Controller: never src/controller, src/sim, src/cli, src/web.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/', pathNot: '^src/(agent|shared)/' },
    },
    {
      name: 'sim-only-shared',
      comment: 'The simulated games stand in for real ones the Controller and the Agent know nothing of: they import only src/shared (what they share, such as the order of game versions) and never src/controller, src/agent, src/cli or src/web, not even a type.',
      severity: 'error',
      from: { path: '^src/sim/' },
      to: { path: '^src/', pathNot: '^src/(sim|shared)/' },
    },
    {
      name: 'controller-not-agent-cli-sim-web',
      comment: 'The Controller talks to Agents over the link only, and serves the CLI and the web UI over HTTP.',
      severity: 'error',
      from: { path: controller },
      to: { path: '^src/(agent|cli|sim|web)/' },
    },
    {
      name: 'cli-only-shared',
      comment: 'The CLI speaks only the public HTTP API: at run time it imports src/shared and nothing else from src/.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/', pathNot: '^src/(cli|shared)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-only-api-types',
      comment: 'The CLI may take API types (type-only) from the Controller schemas, nothing else.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/', pathNot: '^src/(cli|shared|controller/schemas)/', dependencyTypes: ['type-only'] },
    },
    {
      name: 'web-only-web',
      comment: 'The web UI speaks only the public HTTP API: nothing from src/ outside src/web at run time.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/web/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-only-api-types',
      comment: 'The web UI may take API types (type-only) from the Controller schemas, nothing else.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web|controller/schemas)/', dependencyTypes: ['type-only'] },
    },
    {
      name: 'services-in-capability-folders',
      comment: 'Services live in a folder per capability (servers/, nodes/, identity/, ...); only the composition (index.ts) and the deps every service takes (deps.ts) stand at the top. Every service imports something, so each edge of a file left at the top is flagged.',
      severity: 'error',
      from: { path: `${controller}services/[^/]+[.]ts$`, pathNot: `${controller}services/(index|deps)[.]ts$` },
      to: {},
    },
    {
      name: 'controller-root-only-layers',
      comment: `At src/controller's root stand only the layers (${controllerLayers.join(', ')}) and the entry files (controller.ts, main.ts); anything else goes into the layer it belongs to. Every module imports something, so each edge of one left outside is flagged.`,
      severity: 'error',
      from: { path: controller, pathNot: `${controller}((${controllerLayers.join('|')})/|${controllerEntryFiles})` },
      to: {},
    },
    {
      name: 'program-on-top',
      comment: 'program/ (configuration, TLS, the port check, the local Agent, the first lines) and the entry files put the layers together; no layer imports them.',
      severity: 'error',
      from: { path: `${controller}(${controllerLayers.filter((layer) => layer !== 'program').join('|')})/` },
      to: { path: `${controller}(program/|${controllerEntryFiles})` },
    },
    {
      name: 'metrics-read-only',
      comment: 'metrics/ defines every metric, reading what services, the link and the actors expose; those count through what they are handed. Below them nothing imports metrics/ (http/ and link/ take the counters they are given).',
      severity: 'error',
      from: { path: `${controller}(services|actors|store|domain|core|security|schemas|adapters)/` },
      to: { path: `${controller}metrics/` },
    },
    ...capabilityOrder,
    {
      name: 'services-not-http',
      comment: 'Services decide; HTTP is translated by routes. Services must not know http/.',
      severity: 'error',
      from: { path: `${controller}services/` },
      to: { path: `${controller}http/` },
    },
    {
      name: 'http-not-actors-store',
      comment: 'Routes translate HTTP and call services; they never skip to the actors or the store.',
      severity: 'error',
      from: { path: `${controller}http/` },
      to: { path: `${controller}(actors|store)/` },
    },
    {
      name: 'actors-not-services-http',
      comment: 'Arrows point down: routes → services → actors → store.',
      severity: 'error',
      from: { path: `${controller}actors/` },
      to: { path: `${controller}(services|http)/` },
    },
    {
      name: 'store-not-use-cases',
      comment: 'The store knows no use cases: no services, http or actors.',
      severity: 'error',
      from: { path: `${controller}store/` },
      to: { path: `${controller}(services|http|actors)/` },
    },
    {
      name: 'domain-not-http',
      comment: 'Pure rules know nothing of HTTP.',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { path: `${controller}http/` },
    },
    {
      name: 'domain-only-domain-shared',
      comment: 'Domain is pure: it imports values only from domain/, core/ (the HTTP-neutral error) and src/shared (pure modules, see domain-no-io).',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { path: '^src/', pathNot: `^src/(controller/(domain|core)|shared)/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-types-from-schemas',
      comment: 'Domain may name the API\'s and the catalog feed\'s shapes (types derived from their schemas in schemas/, erased at compile time), nothing else.',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { path: '^src/', pathNot: `^src/(controller/(domain|core|schemas)|shared)/`, dependencyTypes: ['type-only'] },
    },
    {
      name: 'domain-no-packages',
      comment: 'Domain is pure: no npm packages at run time (a library with state or I/O belongs to a service or an adapter); naming a type of one is fine.',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-no-io',
      comment: 'Domain is pure: no Node I/O module, directly or through what it imports (type-only imports count: reach follows every edge).',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { path: ioCoreModules, reachable: true },
    },
    {
      name: 'schemas-at-the-bottom',
      comment: 'Schemas (the API\'s and the feed\'s shapes) sit below everything that uses them: the domain names their types, services and routes their values. They import nothing from domain/, services/, http/, adapters/, actors/, store/, link/ or metrics/, not even a type; a value both sides need (a bound, a list of states) lives in the schema or in core/, and the service imports it from there.',
      severity: 'error',
      from: { path: `${controller}schemas/` },
      to: { path: `${controller}(domain|services|http|adapters|actors|store|link|metrics)/` },
    },
    {
      name: 'adapters-below-services',
      comment: 'Adapters (adapters/<capability>/: the upstream catalogs and software sources, template files, the artifact cache, jars) sit below the services: services and routes use them, they never import services/, http/, actors/, store/ or link/.',
      severity: 'error',
      from: { path: `${controller}adapters/` },
      to: { path: `${controller}(services|http|actors|store|link)/` },
    },
    {
      name: 'domain-not-adapters',
      comment: 'Adapters build on the domain\'s rules (adapters → domain), never the reverse: domain imports nothing from adapters/, not even a type; the feed\'s shapes it names are in schemas/catalog-feed.ts.',
      severity: 'error',
      from: { path: `${controller}domain/` },
      to: { path: `${controller}adapters/` },
    },
    {
      name: 'web-pages-not-router',
      comment: 'The router imports the pages, so pages never import the router; what pages and the router share (the session) is in its own module, src/web/src/app/session.ts.',
      severity: 'error',
      from: { path: '^src/web/src/pages/' },
      to: { path: '^src/web/src/app/router[.]tsx?$' },
    },
    {
      name: 'web-session-not-router-pages',
      comment: 'The session is below the pages and the router, which both use it: it imports neither.',
      severity: 'error',
      from: { path: '^src/web/src/app/session[.]tsx?$' },
      to: { path: '^src/web/src/(app/router[.]tsx?$|pages/)' },
    },
    {
      name: 'machines-no-io',
      comment: 'Machines hold lifecycles and do no I/O: no Node I/O module, directly or through what they import (type-only imports count).',
      severity: 'error',
      from: { path: machines },
      to: { path: ioCoreModules, reachable: true },
    },
    {
      name: 'machines-only-xstate',
      comment: 'Machines do no I/O: the only package they use is xstate; no store, link, services or http.',
      severity: 'error',
      from: { path: machines },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: '^node_modules/xstate/',
      },
    },
    {
      name: 'machines-not-io-layers',
      comment: 'Machines are data: they do not reach the store, the link, services or http.',
      severity: 'error',
      from: { path: machines },
      to: { path: `${controller}(store|link|services|http)/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test/fixtures)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
