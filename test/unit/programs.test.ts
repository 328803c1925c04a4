import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { programCommand, programModule, type CairnProgram } from '../../src/shared/programs.js';

describe('Cairn programs started by Cairn', () => {
  const programs: CairnProgram[] = ['cairn-agent', 'shim', 'simcraft', 'simproxy'];

  it('finds every entry module of this installation', () => {
    for (const program of programs) expect(existsSync(programModule(program)), program).to.equal(true);
  });

  it('runs the TypeScript source through tsx when Cairn runs from source', () => {
    const { command, args } = programCommand('cairn-agent');
    expect(command).to.equal(process.execPath);
    expect(args).to.have.length(3);
    expect(args[0]).to.equal('--import');
    expect(args[2]).to.equal(programModule('cairn-agent')).and.to.match(/src\/agent\/main\.ts$/);
  });
});
