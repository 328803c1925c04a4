import type { ErrorObject } from 'ajv';
import { egressAllowRule } from '../../shared/egress-rule.js';
import { egressRuleFormat } from '../schemas/validators.js';

/**
 * Plain sentences for ajv's refusals. The problem's `detail` reaches people (the web UI shows it
 * under the field, the CLI prints it), so each says what to do instead of quoting the schema:
 * `body.name: enter at least 1 character.` rather than `must NOT have fewer than 1 characters`.
 * The `<where>.<field>: ` prefix stays: clients read the field from it.
 */

/** What a `…Id` field names, for "give the id of a team (a UUID)". */
const idNouns: Record<string, string> = {
  teamId: 'a team', nodeId: 'a Node', targetNodeId: 'a Node', serverId: 'a server', lobbyServerId: 'a server', userId: 'a user',
  actorUserId: 'a user', roleId: 'a role', destinationId: 'a backup destination', scheduleId: 'a backup schedule', backupId: 'a backup',
  tokenId: 'an API token', installationId: 'a plugin installation',
};

/** The schemas' patterns in words; a raw regular expression tells a person nothing. */
const patternWords: Record<string, string> = {
  '^[^\\x00-\\x1f\\x7f]+$': 'remove control characters such as line breaks and tabs',
  '^[0-9a-f]{64}$': 'give 64 lower-case hex digits (a SHA-256)',
  '^[0-9a-f]{40}$': 'give 40 lower-case hex digits (a SHA-1)',
  '^[a-z0-9][a-z0-9-]*$': 'use lower-case letters, digits and hyphens, starting with a letter or digit',
  '^[A-Za-z0-9][A-Za-z0-9 ._-]*$': 'start with a letter or digit, then use letters, digits, spaces, ".", "_" or "-"',
  '^[A-Za-z0-9][A-Za-z0-9_.-]*$': 'start with a letter or digit, then use letters, digits, ".", "_" or "-"',
  '^https?://': 'give an address starting with http:// or https://',
  '^(https?|file):': 'give an address starting with http://, https:// or file:',
  '^[a-z0-9][a-z0-9-]{0,31}:[A-Za-z0-9._~-]{1,128}$': 'give a plugin id as <source>:<id>, e.g. modrinth:luckperms',
  '^[^:\\s]+:\\S+$': 'give a plugin id as <source>:<id>, e.g. modrinth:luckperms',
};

const typeWords: Record<string, string> = {
  string: 'give text', number: 'give a number', integer: 'give a whole number', boolean: 'give true or false',
  array: 'give a list', object: 'give an object', null: 'give null',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const listed = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

function formatSentence(format: string, field: string): string {
  const noun = idNouns[field];
  if (format === 'uuid') return noun ? `give the id of ${noun} (a UUID)` : 'give an id (a UUID)';
  if (format === 'date-time') return 'give a date and time such as 2026-01-31T12:00:00Z';
  if (format === 'email') return 'give an email address such as name@example.com';
  if (format === egressRuleFormat) return `give ${egressAllowRule}`;
  return `give a valid ${format}`;
}

/** What to do about one ajv error, without the field: `enter at least 1 character`. */
export function advice(error: ErrorObject, field: string): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minLength': return `enter at least ${plural(p.limit as number, 'character', 'characters')}`;
    case 'maxLength': return `use at most ${plural(p.limit as number, 'character', 'characters')}`;
    case 'format': return formatSentence(p.format as string, field);
    case 'pattern': return patternWords[p.pattern as string] ?? `give a value of the form ${p.pattern as string}`;
    case 'minimum': return `give ${p.limit as number} or more`;
    case 'maximum': return `give ${p.limit as number} or less`;
    case 'exclusiveMinimum': return `give more than ${p.limit as number}`;
    case 'exclusiveMaximum': return `give less than ${p.limit as number}`;
    case 'multipleOf': return `give a multiple of ${p.multipleOf as number}`;
    case 'enum': return `choose one of ${listed(p.allowedValues as unknown[])}`;
    case 'const': return `give ${JSON.stringify(p.allowedValue)}`;
    case 'type': return typeWords[p.type as string] ?? `give a value of type ${String(p.type)}`;
    case 'minItems': return `give at least ${plural(p.limit as number, 'item', 'items')}`;
    case 'maxItems': return `give at most ${plural(p.limit as number, 'item', 'items')}`;
    case 'uniqueItems': return `remove the repeated item (items ${p.j as number} and ${p.i as number} are the same)`;
    case 'minProperties': return `give at least ${plural(p.limit as number, 'field', 'fields')}`;
    case 'maxProperties': return `give at most ${plural(p.limit as number, 'field', 'fields')}`;
    case 'anyOf': case 'oneOf': return 'give a value of one of the forms the API reference lists';
    default: return `correct this value (${error.message ?? 'it is invalid'})`;
  }
}

/**
 * The error to describe. A union of literals (`'SUCCESS' | 'FAILED'`) fails as one `const` error
 * per branch and then `anyOf`; the first of them alone would ask for its one value, so they are
 * merged into the list of allowed values.
 */
function firstError(errors: ErrorObject[]): ErrorObject | undefined {
  const first = errors.at(0);
  const union = errors.find((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && e.instancePath === first?.instancePath);
  const branches = union ? errors.slice(0, errors.indexOf(union)) : [];
  if (!union || !branches.every((e) => e.keyword === 'const' && e.instancePath === union.instancePath)) return first;
  return { ...union, keyword: 'enum', params: { allowedValues: branches.map((e) => (e.params as { allowedValue: unknown }).allowedValue) } };
}

/** A field-naming sentence from ajv's errors, e.g. `body.name: use at most 100 characters.` */
export function describeError(where: string, errors: ErrorObject[] | null | undefined): string {
  const error = firstError(errors ?? []);
  if (!error) return `${where}: this value is not valid; check it against the API reference.`;
  const segments = error.instancePath.split('/').slice(1);
  // An item is named as people write it, `body.network.egressAllow[3]`, and as the API reference's fields are.
  const at = where + segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `${at}.${extra}: unknown field; remove it or check its spelling.`;
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${at}.${missing}: is required; add it.`;
  }
  const field = segments.at(-1) ?? '';
  return `${at}: ${advice(error, field)}.`;
}
