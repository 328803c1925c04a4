import { expect } from 'chai';
import { problemField, withoutField } from '../../src/web/src/api/problem-field.js';
import { crumbs, directoriesFor, isReadOnly, joinPath, parentOf } from '../../src/web/src/pages/servers/tabs/file-paths.js';
import { bytesToMiB, formatBytes, formatCpu, MiB, parseWholeNumber } from '../../src/web/src/format/units.js';
import { formatIsolation } from '../../src/web/src/pages/nodes/node-format.js';
import { detailIdKind } from '../../src/web/src/pages/audit/audit-filters.js';

describe('web UI: the pure helpers behind its forms and tables', () => {
  it('finds the request field an API detail names, and the sentence after it', () => {
    expect(problemField('body.name: must NOT have more than 64 characters.')).to.equal('name');
    expect(problemField('body.resources.cpuMillis: must be >= 1.')).to.equal('resources.cpuMillis');
    expect(problemField('body.network.port: must be <= 65535.')).to.equal('network.port');
    expect(problemField('query.path: must NOT have fewer than 1 characters.')).to.equal('path');
    expect(problemField('body: the jar is empty.')).to.equal(undefined);
    expect(problemField('A user with that username already exists.')).to.equal(undefined);
    expect(problemField(undefined)).to.equal(undefined);
    expect(problemField('body.tasks[1].command: is required; add it.')).to.equal('tasks[1].command');
    expect(problemField('body.network.egressAllow[3]: give a CIDR.')).to.equal('network.egressAllow[3]');
    expect(withoutField('body.tasks[1].command: is required; add it.')).to.equal('is required; add it.');
    expect(withoutField('body.network.port: must be <= 65535.')).to.equal('must be <= 65535.');
    expect(withoutField('No such server.')).to.equal('No such server.');
  });

  it('parses whole positive numbers typed into a field, refusing anything else', () => {
    expect(parseWholeNumber('512')).to.equal(512);
    expect(parseWholeNumber(' 1 000 ')).to.equal(1000);
    expect(parseWholeNumber('1_024')).to.equal(1024);
    for (const bad of ['', '0', '-1', '1.5', '1e3', 'abc', '99999999999999999999']) expect(parseWholeNumber(bad), bad).to.equal(undefined);
  });

  it('shows bytes in binary units and CPU in millicores and cores', () => {
    expect(formatBytes(0)).to.equal('0 B');
    expect(formatBytes(512 * MiB)).to.equal('512 MiB');
    expect(formatBytes(1536 * MiB)).to.equal('1.5 GiB');
    expect(formatBytes(1023)).to.equal('1023 B');
    expect(formatBytes(1234567)).to.equal('1.18 MiB');
    expect(formatCpu(500)).to.equal('500m (0.5 CPU)');
    expect(formatCpu(2000)).to.equal('2000m (2 CPU)');
    expect(bytesToMiB(64 * MiB)).to.equal(64);
  });

  it('joins file paths from the root, lists a folder upload\'s directories parents first, and keeps .cairn read-only', () => {
    expect(joinPath('.', 'a.txt')).to.equal('a.txt');
    expect(joinPath('world', 'level.dat')).to.equal('world/level.dat');
    expect(parentOf('world/region/r.0.0.mca')).to.equal('world/region');
    expect(parentOf('a.txt')).to.equal('.');
    expect(crumbs('a/b')).to.deep.equal([['a', 'a'], ['b', 'a/b']]);
    expect(crumbs('.')).to.deep.equal([]);
    expect(directoriesFor('.', ['site/css/main.css', 'site/index.html', 'site/js/a/b.js'])).to.deep.equal(['site', 'site/css', 'site/js', 'site/js/a']);
    expect(directoriesFor('plugins', ['x.jar'])).to.deep.equal([]);
    expect(directoriesFor('plugins', ['cfg/x.yml'])).to.deep.equal(['plugins/cfg']);
    expect(isReadOnly('.cairn')).to.equal(true);
    expect(isReadOnly('.cairn/simcraft.mjs')).to.equal(true);
    expect(isReadOnly('.cairnish')).to.equal(false);
  });

  it('says in words how a Node boxes its games', () => {
    expect(formatIsolation(undefined)).to.equal('Not reported yet');
    expect(formatIsolation({ users: true, filesystem: true, memory: true, cpu: true, pids: true, network: true, gameUids: '200000-299999' })).to.equal('Every game in its own box: own users, own filesystem view, memory limits, CPU limits, task limits, own network (uids 200000-299999)');
    expect(formatIsolation({ users: true, filesystem: true, memory: true, cpu: true })).to.equal('Partial: own users, own filesystem view, memory limits, CPU limits');
    expect(formatIsolation({ users: true, filesystem: false, memory: true, cpu: false, pids: true, gameUids: '300000-300999' })).to.equal('Partial: own users, memory limits, task limits (uids 300000-300999)');
    expect(formatIsolation({ users: false, filesystem: false, memory: false, cpu: false })).to.equal('None: games run as the Agent\'s user');
  });

  it('knows which audit details hold the id of something the UI can name', () => {
    expect(['serverId', 'sourceServerId', 'teamId', 'targetNodeId', 'userId', 'destinationId', 'name', 'serverIds'].map(detailIdKind))
      .to.deep.equal(['server', 'server', 'team', 'node', 'user', undefined, undefined, undefined]);
  });
});
