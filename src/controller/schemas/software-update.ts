import Type from 'typebox';

export const UpdateSoftware = Type.Object({
  version: Type.String({ minLength: 1, maxLength: 100, description: 'A version of the server\'s template, as `GET /templates/{id}/versions` lists it.' }),
  build: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A build of that version (PaperMC); without it, the newest.' })),
  backupDestinationId: Type.Optional(Type.String({
    format: 'uuid',
    description: 'Where the PRE_UPDATE backup goes, kept after the update. Without it the backup goes to the built-in destination as the update\'s rollback copy and is removed when the update ends.',
  })),
  allowDowngrade: Type.Optional(Type.Boolean({ description: 'Go to an older game version (refused with `downgrade_refused` otherwise): the world may not open, and a failed start rolls back.' })),
  force: Type.Optional(Type.Boolean({ description: 'Update although installed catalog plugins have no version for the target (`incompatible_plugin` otherwise).' })),
}, { additionalProperties: false });
