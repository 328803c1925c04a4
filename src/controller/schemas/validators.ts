import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { parseEgressRule } from '../../shared/egress-rule.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const rfc3339 = fullFormats['date-time'] as { validate: (text: string) => boolean };

/**
 * RFC 3339 allows a leap second (`23:59:60`) that JavaScript's Date cannot name; such a text
 * would pass the schema and then break every use of its time. A date-time must be both.
 */
const dateTime = { type: 'string' as const, validate: (text: string) => rfc3339.validate(text) && !Number.isNaN(Date.parse(text)) };

/** `CIDR[:PORT]` as the Agent reads it: the Controller never sends an entry its Agents would skip. */
export const egressRuleFormat = 'egress-rule';
const egressRule = { type: 'string' as const, validate: (text: string) => text === text.trim() && parseEgressRule(text) !== undefined };

/**
 * The Controller's two schema checkers. JSON is checked as it is: request and response bodies,
 * catalog feeds, template files. Query strings and path parameters arrive as text, so they are
 * coerced to the schema's types and missing fields get their `default`; those options would
 * change what a body means, hence a checker of their own.
 */
export const jsonAjv = addFormats(new Ajv({ allErrors: false, strict: false })).addFormat('date-time', dateTime).addFormat(egressRuleFormat, egressRule);
export const textAjv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true })).addFormat('date-time', dateTime);
