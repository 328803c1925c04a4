/** What each route's `tag` groups, in the order the reference shows them. */
export const apiTags = {
  auth: 'First-run setup, signing in and out, password-reset redemption.',
  me: 'The signed-in user: profile, password, memberships, API tokens.',
  users: 'User accounts (global administrators).',
  teams: 'Teams and their memberships: who may do what with a team\'s servers.',
  roles: 'Built-in and custom roles: named sets of permissions.',
  audit: 'The audit log of every state-changing request.',
  network: 'The one network: where players connect, its lobby and its proxy.',
  nodes: 'Game hosts: enrollment of their Agents, placement, draining.',
  servers: 'Game servers: desired spec, observed status, power, migration, the live watch stream.',
  console: 'A server\'s live console and the commands typed into it.',
  files: 'A server\'s files, relayed to and from its Node.',
  properties: 'A server\'s server.properties.',
  templates: 'The service templates servers run.',
  plugins: 'The plugin catalog and a server\'s installed plugins.',
  backups: 'Backup destinations, schedules, backups and restores.',
  schedules: 'A server\'s schedules: tasks on a clock (commands, power, backups) and their runs.',
  webhooks: 'Notifications: webhooks that hear the fleet\'s events, and their deliveries.',
} as const;

export type ApiTag = keyof typeof apiTags;
