import { Ajv, type ErrorObject } from 'ajv';
import { checkTemplateRules } from './template-rules.js';
import { BuiltinInstall, DownloadInstall, TemplateFile, TreeInstall, type Template } from './templates.js';

/**
 * The one check of a service template, for both programs: the Controller runs it on the files it
 * loads, the Agent on every template that arrives over the link, so neither trusts a shape it has
 * not checked.
 */

/** A template that is not one Cairn can run; the message names the field. */
export class InvalidTemplateError extends Error {
  constructor(readonly problem: string) {
    super(`invalid template: ${problem}`);
    this.name = 'InvalidTemplateError';
  }
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validate = ajv.compile(TemplateFile);
/** `install` is a union: its errors are taken from the branch its `source` names, not the first one. */
const installBySource = { builtin: ajv.compile(BuiltinInstall), download: ajv.compile(DownloadInstall), tree: ajv.compile(TreeInstall) };

function firstError(value: unknown): ErrorObject | undefined {
  const error = validate.errors?.[0];
  const install = (value as { install?: { source?: unknown } }).install;
  const source = install?.source;
  if (!error?.instancePath.startsWith('/install') || (source !== 'builtin' && source !== 'download' && source !== 'tree')) return error;
  const branch = installBySource[source];
  if (branch(install)) return error;
  const inner = branch.errors?.[0];
  return inner && { ...inner, instancePath: `/install${inner.instancePath}` };
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid';
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `${path ? path + '.' : ''}${extra}: unknown field`;
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${path ? path + '.' : ''}${missing}: is required`;
  }
  return `${path || '(file)'}: ${error.message ?? 'is invalid'}`;
}

/** The first field of a parsed template that breaks the schema, described; undefined when it fits. */
export function schemaProblem(value: unknown): string | undefined {
  return validate(value) ? undefined : describe(firstError(value));
}

/** The first thing wrong with a parsed template (its schema, then the rules across fields), or undefined. */
export function templateProblem(value: unknown): string | undefined {
  return schemaProblem(value) ?? checkTemplateRules(value as Template);
}

/** A template from its JSON text, checked; throws InvalidTemplateError. */
export function parseTemplateJson(text: string): Template {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidTemplateError(`not valid JSON (${(error as Error).message})`);
  }
  const problem = templateProblem(value);
  if (problem) throw new InvalidTemplateError(problem);
  return value as Template;
}
