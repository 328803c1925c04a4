import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * The Controller's two schema checkers. JSON is checked as it is: request and response bodies,
 * catalog feeds, template files. Query strings and path parameters arrive as text, so they are
 * coerced to the schema's types and missing fields get their `default`; those options would
 * change what a body means, hence a checker of their own.
 */
export const jsonAjv = addFormats(new Ajv({ allErrors: false, strict: false }));
export const textAjv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true }));
