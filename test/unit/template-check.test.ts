import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/adapters/software/template-catalog.js';
import { InvalidTemplateError, parseTemplateJson } from '../../src/shared/template-check.js';

function refusal(text: string): InvalidTemplateError {
  try {
    parseTemplateJson(text);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidTemplateError);
    return error as InvalidTemplateError;
  }
  throw new Error('the template was accepted');
}

describe('template check (a template arriving as JSON)', () => {
  let simcraft: Record<string, unknown>;
  before(async () => {
    simcraft = JSON.parse(await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8')) as Record<string, unknown>;
  });

  it('accepts a shipped template', () => {
    expect(parseTemplateJson(JSON.stringify(simcraft))).to.deep.equal(simcraft);
  });

  it('refuses text that is not JSON', () => {
    expect(refusal('{"id":').problem).to.match(/^not valid JSON/);
  });

  it('refuses a schema violation, naming the field', () => {
    expect(refusal('{"id":"simcraft"}').problem).to.equal('name: is required');
    expect(refusal(JSON.stringify({ ...simcraft, install: { source: 'builtin', program: 'simcraft', file: '../x' } })).problem).to.match(/^install\.file: /);
    expect(refusal(JSON.stringify({ ...simcraft, extra: 1 })).problem).to.equal('extra: unknown field');
  });

  it('refuses template paths that could leave the server\'s directory: `..`, absolute, empty segments, hidden, .cairn, NUL', () => {
    const config = simcraft.config as Record<string, unknown>;
    for (const bad of ['config/../../../../etc/x', '../x', '/etc/x', 'config//x', 'config/', '.cairn/x', 'config/.hidden', 'a\u0000b', 'config/./x']) {
      expect(refusal(JSON.stringify({ ...simcraft, config: { ...config, file: bad } })).problem, bad).to.match(/^config\.file: /);
      expect(refusal(JSON.stringify({ ...simcraft, seedFiles: [{ path: bad, content: 'x' }] })).problem, bad).to.match(/^seedFiles\.0\.path: /);
    }
    for (const good of ['server.properties', 'config/paper-global.yml', 'plugins/x-1.0.jar']) {
      expect(parseTemplateJson(JSON.stringify({ ...simcraft, seedFiles: [{ path: good, content: 'x' }] })).seedFiles?.[0].path).to.equal(good);
    }
  });

  it('refuses a rule across fields', () => {
    const run = { command: '{node}', args: ['{secret}'] };
    expect(refusal(JSON.stringify({ ...simcraft, run })).problem).to.match(/^run\.args\.0: unknown placeholder \{secret\}/);
  });

  it('checks how a template quiesces for a backup: one-line commands, a valid waitFor, a bounded timeout', () => {
    const backup = simcraft.backup as Record<string, unknown>;
    expect(backup).to.deep.equal({ quiesce: ['save-off', 'save-all flush'], waitFor: 'Saved the game', resume: ['save-on'], timeoutSeconds: 30 });
    expect(refusal(JSON.stringify({ ...simcraft, backup: { ...backup, waitFor: '(' } })).problem).to.match(/^backup\.waitFor: not a valid regular expression/);
    expect(refusal(JSON.stringify({ ...simcraft, backup: { ...backup, quiesce: ['save-off\nstop'] } })).problem).to.match(/^backup\.quiesce\.0: /);
    expect(refusal(JSON.stringify({ ...simcraft, backup: { ...backup, quiesce: [] } })).problem).to.match(/^backup\.quiesce: /);
    expect(refusal(JSON.stringify({ ...simcraft, backup: { ...backup, timeoutSeconds: 0 } })).problem).to.match(/^backup\.timeoutSeconds: /);
    expect(refusal(JSON.stringify({ ...simcraft, backup: { ...backup, after: 'x' } })).problem).to.equal('backup.after: unknown field');
  });
});
