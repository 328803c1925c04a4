import Type from 'typebox';
import { DisplayName, Email, Password, Username } from './users.js';
import { PrintableName } from './common.js';

export const NetworkAddress = Type.String({
  minLength: 1, maxLength: 253,
  pattern: '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\\[?[0-9A-Fa-f:.]+\\]?)$',
  description: 'Host name or IP address, without a port.',
});
export const NetworkPort = Type.Integer({ minimum: 1, maximum: 65535 });

export const NetworkInput = Type.Object({
  name: PrintableName(64),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  address: NetworkAddress,
  port: NetworkPort,
}, { additionalProperties: false });

export const Setup = Type.Object({
  setupCode: Type.String({ minLength: 1, maxLength: 200 }),
  username: Username,
  email: Email,
  displayName: DisplayName,
  password: Password,
  network: NetworkInput,
}, { additionalProperties: false });

export const SetupStatus = Type.Object({
  done: Type.Boolean({ description: 'True once the first administrator exists; POST /setup then answers setup_done.' }),
});
