import Type from 'typebox';
import { templateIdPattern } from '../../shared/templates.js';
import { DateTime } from './common.js';

export const TemplateSummary = Type.Object({
  id: Type.String({ pattern: templateIdPattern }),
  name: Type.String({ description: 'What the template installs, for people, e.g. `Paper` or `Minecraft (vanilla)`.' }),
  description: Type.Optional(Type.String({ description: 'A sentence or two on what the template is for, when its file has one.' })),
  kind: Type.Union([Type.Literal('GAME_SERVER'), Type.Literal('PROXY')]),
  networkMember: Type.Boolean({ description: 'Whether servers of this template can join the network.' }),
  platform: Type.String({ description: 'What plugins must target to be compatible, e.g. `paper`, `velocity`.' }),
  versions: Type.Array(Type.String(), { description: 'Versions that can be installed, newest first.' }),
  order: Type.Optional(Type.Integer({ description: 'Where the template comes in a choice among those that can install now, lower first (absent: 100); clients order by it, then by id.' })),
  eula: Type.Optional(Type.Boolean({ description: 'True when the software runs only once `eula.txt` says `eula=true` (Mojang\'s EULA); the web UI asks on the first Start and writes the file through `PUT /servers/{id}/files/content` (audited as `server.file.write`).' })),
  versionsFrom: Type.Optional(Type.Union([Type.Literal('UPSTREAM'), Type.Literal('SNAPSHOT')], {
    description: 'Upstream templates only: `UPSTREAM` when the versions come from a sync (at `syncedAt`), `SNAPSHOT` while they are the list shipped with Cairn (no sync has succeeded).',
  })),
  syncedAt: Type.Optional(DateTime),
  syncError: Type.Optional(Type.String({ description: 'Why the last sync of the versions failed, in words; absent when it succeeded or has not run yet.' })),
});
