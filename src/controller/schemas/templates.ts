import Type from 'typebox';
import { templateIdPattern } from '../../shared/templates.js';

export const TemplateSummary = Type.Object({
  id: Type.String({ pattern: templateIdPattern }),
  name: Type.String({ description: 'What the template installs, for people, e.g. `Paper` or `Minecraft (vanilla)`.' }),
  description: Type.Optional(Type.String({ description: 'A sentence or two on what the template is for, when its file has one.' })),
  kind: Type.Union([Type.Literal('GAME_SERVER'), Type.Literal('PROXY')]),
  networkMember: Type.Boolean({ description: 'Whether servers of this template can join the network.' }),
  platform: Type.String({ description: 'What plugins must target to be compatible, e.g. `paper`, `velocity`.' }),
  versions: Type.Array(Type.String(), { description: 'Versions that can be installed, newest first.' }),
});
