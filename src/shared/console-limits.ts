/**
 * Longest console command, in bytes of UTF-8: Minecraft commands such as `tellraw` with generated
 * JSON run long, and 64 KiB fits one link message and one supervisor input frame with room to spare.
 * The Controller, the Agent and the supervisor all hold commands to this one bound.
 */
export const maxCommandBytes = 64 * 1024;

export const commandTooLong = (command: string) => Buffer.byteLength(command, 'utf8') > maxCommandBytes;
