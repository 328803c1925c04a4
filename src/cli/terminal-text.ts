/**
 * Terminal control in text a game wrote: ESC sequences (CSI `ESC [ … final`, OSC/DCS/APC/PM/SOS
 * strings ended by BEL or `ESC \`, and two-byte escapes), their 8-bit C1 forms, DEL and every other
 * C0 control but tab and newline. A game (or a player whose chat it echoes) could otherwise
 * retitle the operator's terminal, move its cursor over earlier lines, or write to its clipboard.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controls = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[\x20-\x2f]*[\x30-\x7e]?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** The text without terminal control; tab and newline stay. */
export const withoutControls = (text: string): string => text.replace(controls, '');
