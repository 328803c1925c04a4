import { expect } from 'chai';
import YAML from 'yaml';
import type { ServerItem } from '../../src/cli/api-types.js';
import { formatDone, formatList, formatOne, parseFormat, table } from '../../src/cli/output.js';
import { ServerPrinter } from '../../src/cli/watch-servers.js';
import { serverView, type Names } from '../../src/cli/views.js';

const names: Names = { team: (id) => (id === 't1' ? 'Survival' : id), node: (id) => (id === 'n1' ? 'host-1' : id), server: (id) => id, user: (id) => id, role: (id) => id };

const server = (over: Partial<ServerItem> = {}): ServerItem => ({
  id: 's1', name: 'lobby', teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', inNetwork: false, desiredState: 'RUNNING', generation: 2,
  phase: 'READY', runtimeState: 'RUNNING', convergence: 'CONVERGED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 500, memoryBytes: 512 * 2 ** 20 }, gamePort: 30001, conditionCount: 0, ...over,
});

describe('cairn CLI: output formats', () => {
  const view = serverView(names);

  it('pads table columns to their widest cell, three spaces apart, without trailing blanks', () => {
    expect(table([['NAME', 'PHASE'], ['a-long-name', 'READY'], ['b', '']])).to.equal('NAME          PHASE\na-long-name   READY\nb\n');
  });

  it('pads by terminal columns: CJK and emoji take two, a combining mark none, so non-ASCII names keep the columns aligned', () => {
    const decomposed = 'cafe\u0301';
    const out = table([['NAME', 'PHASE'], ['café', 'READY'], [decomposed, 'READY'], ['服务器', 'READY'], ['emoji🎮', 'READY'], ['plain', 'READY']]);
    expect(out).to.equal([
      'NAME      PHASE',
      'café      READY',
      `${decomposed}      READY`,
      '服务器    READY',
      'emoji🎮   READY',
      'plain     READY',
      '',
    ].join('\n'));
    // The widest cell sets the column: a wide name pushes the next column as far as its columns reach.
    expect(table([['NAME', 'X'], ['服务器服务器', 'y']])).to.equal('NAME           X\n服务器服务器   y\n');
  });

  it('table shows names instead of ids and <none> for what is missing; wide adds software, quantities and the id', () => {
    const out = formatList(view, [server(), server({ id: 's2', name: 'arena', runtimeState: undefined, nodeId: undefined })], 'table');
    expect(out.split('\n')[0]).to.match(/^NAME\s+TEAM\s+NODE\s+DESIRED\s+PHASE\s+RUNTIME\s+CONVERGENCE$/);
    expect(out).to.match(/^lobby\s+Survival\s+host-1\s+RUNNING\s+READY\s+RUNNING\s+CONVERGED$/m);
    expect(out).to.match(/^arena\s+Survival\s+<none>\s+RUNNING\s+READY\s+<none>\s+CONVERGED$/m);
    expect(out).to.not.include('s1');
    const wide = formatList(view, [server()], 'wide');
    expect(wide).to.match(/simcraft 1\.21\.4\s+500m\s+512Mi\s+30001\s+0\s+s1$/m);
  });

  it('a sleeping server reads SLEEPING in the RUNTIME column (its runtimeState is STOPPED, desired RUNNING and CONVERGED)', () => {
    const out = formatList(view, [server({ runtimeState: 'STOPPED', sleeping: true }), server({ id: 's2', name: 'arena', runtimeState: 'STOPPED', desiredState: 'STOPPED' })], 'table');
    expect(out).to.match(/^lobby\s+Survival\s+host-1\s+RUNNING\s+READY\s+SLEEPING\s+CONVERGED$/m);
    expect(out).to.match(/^arena\s+Survival\s+host-1\s+STOPPED\s+READY\s+STOPPED\s+CONVERGED$/m);
  });

  it('json and yaml print {items} of what the API sent for a list, the thing itself for one', () => {
    const items = [server()];
    expect(JSON.parse(formatList(view, items, 'json'))).to.deep.equal({ items });
    expect(YAML.parse(formatList(view, items, 'yaml'))).to.deep.equal({ items });
    expect(JSON.parse(formatOne(view, items[0], 'json'))).to.deep.equal(items[0]);
    expect(formatList(view, [], 'json')).to.equal('{\n  "items": []\n}\n');
  });

  it('name prints kind/name lines; an empty table prints nothing', () => {
    expect(formatList(view, [server(), server({ name: 'arena' })], 'name')).to.equal('server/lobby\nserver/arena\n');
    expect(formatList(view, [], 'table')).to.equal('');
  });

  it('a change reads kind/name verb, or the API answer with -o json', () => {
    expect(formatDone('server', 'lobby', 'created', { id: 's1' }, 'table')).to.equal('server/lobby created\n');
    expect(formatDone('server', 'lobby', 'created', { id: 's1' }, 'name')).to.equal('server/lobby\n');
    expect(JSON.parse(formatDone('server', 'lobby', 'created', { id: 's1' }, 'json'))).to.deep.equal({ id: 's1' });
  });

  it('accepts the five -o formats only', () => {
    expect(parseFormat(undefined)).to.equal('table');
    for (const f of ['table', 'wide', 'json', 'yaml', 'name']) expect(parseFormat(f)).to.equal(f);
    expect(() => parseFormat('xml')).to.throw(/unknown output format "xml"/);
  });

  it('a watch prints the header once and leaves out a state equal to the last one printed', () => {
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    });
    try {
      const printer = new ServerPrinter(view, 'table');
      printer.show([server({ runtimeState: 'STOPPED', desiredState: 'STOPPED' })]);
      printer.show([server({ runtimeState: 'STOPPED', desiredState: 'STOPPED' })]);
      printer.show([server({ runtimeState: 'STARTING' })]);
      printer.deleted('s1');
      printer.deleted('unknown');
    } finally {
      process.stdout.write = write;
    }
    const lines = written.join('').trimEnd().split('\n');
    expect(lines).to.have.length(4);
    expect(lines[0]).to.match(/^NAME\s+TEAM/);
    expect(lines[1]).to.match(/STOPPED\s+READY\s+STOPPED/);
    expect(lines[2]).to.match(/RUNNING\s+READY\s+STARTING/);
    expect(lines[3]).to.match(/^lobby\s+Survival\s+host-1\s+RUNNING\s+DELETED/);
  });

  it('after a fresh snapshot a watch prints the servers it no longer names as deleted, once', () => {
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    });
    try {
      const printer = new ServerPrinter(view, 'json');
      printer.show([server(), server({ id: 's2', name: 'arena' })]);
      printer.forgetAllBut(new Set(['s1']));
      printer.forgetAllBut(new Set(['s1']));
      printer.show([server({ id: 's2', name: 'arena' })]);
    } finally {
      process.stdout.write = write;
    }
    const lines = written.join('').trimEnd().split('\n').map((l) => JSON.parse(l) as { name: string; deleted?: boolean });
    expect(lines.map((l) => [l.name, l.deleted ?? false])).to.deep.equal([['lobby', false], ['arena', false], ['arena', true], ['arena', false]]);
  });
});
