import Type, { type Static } from 'typebox';

export const AgentLink = Type.Object({
  host: Type.Optional(Type.String({
    description: 'The host the Agent link listens on; absent when it listens on every interface, where a client uses the host it reached the Controller by.',
  })),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  tls: Type.Boolean({ description: 'True when the link runs TLS: the Agent then needs `--controller-ca`.' }),
}, { description: 'Where an Agent dials the Controller: `cairn-agent --controller HOST:PORT`.' });
export type AgentLink = Static<typeof AgentLink>;
