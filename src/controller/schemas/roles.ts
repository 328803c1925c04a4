import Type from 'typebox';
import { permissionValues } from '../core/permission-names.js';
import { DateTime, Uuid, PrintableName } from './common.js';

export const PermissionValue = Type.Enum(permissionValues);
const RoleName = PrintableName(100);
const RoleDescription = Type.String({ maxLength: 500 });
const Permissions = Type.Array(PermissionValue, { uniqueItems: true });

export const Role = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  builtin: Type.Boolean(),
  permissions: Type.Array(Type.String()),
  createdAt: DateTime,
});

export const CreateRole = Type.Object({
  name: RoleName,
  description: Type.Optional(RoleDescription),
  permissions: Permissions,
}, { additionalProperties: false });

export const UpdateRole = Type.Object({
  name: Type.Optional(RoleName),
  description: Type.Optional(RoleDescription),
  permissions: Type.Optional(Permissions),
}, { additionalProperties: false, minProperties: 1 });
