import { expect } from 'chai';
import type { AgentLink, ServerItem } from '../../src/cli/api-types.js';
import { remoteOf } from '../../src/cli/commands/copy.js';
import { agentCommand } from '../../src/cli/commands/create.js';
import { conditionMet } from '../../src/cli/wait-server.js';
import { ambiguity, isId, kinds, matchesByName } from '../../src/cli/resolve.js';
import { shellQuote } from '../../src/cli/shell-quote.js';

describe('cairn CLI: names, ids and targets', () => {
  const servers = [{ id: 'a', name: 'lobby' }, { id: 'b', name: 'Lobby' }, { id: 'c', name: 'lobby' }] as ServerItem[];

  it('finds servers by exact name; several with that name are all returned (the caller refuses)', () => {
    expect(matchesByName(kinds.server, servers, 'lobby').map((s) => s.id)).to.deep.equal(['a', 'c']);
    expect(matchesByName(kinds.server, servers, 'Lobby').map((s) => s.id)).to.deep.equal(['b']);
    expect(matchesByName(kinds.server, servers, 'LOBBY')).to.deep.equal([]);
  });

  it('finds Nodes and users regardless of case (their names are unique so), exact first', () => {
    const nodes = [{ id: 'n1', name: 'Host-1' }, { id: 'n2', name: 'host-2' }];
    expect(matchesByName(kinds.node, nodes as never[], 'host-1')).to.deep.equal([nodes[0]]);
    expect(matchesByName(kinds.user, [{ id: 'u', username: 'Admin' }] as never[], 'admin')).to.have.length(1);
  });

  it('an ambiguous name lists every match and says how to pick one', () => {
    const e = ambiguity(kinds.server, 'lobby', ['a  team Survival', 'c  team Creative'], '--team');
    expect(e.message).to.equal('server name "lobby" is ambiguous: 2 servers match; name one by id, or narrow with --team:\n  a  team Survival\n  c  team Creative');
  });

  it('tells ids from names', () => {
    expect(isId('01a20abb-3084-77c1-b613-ccda9c904553')).to.equal(true);
    expect(isId('lobby')).to.equal(false);
  });

  it('NAME:PATH is a server file; paths with a slash before the colon are local', () => {
    expect(remoteOf('lobby:plugins/x.jar')).to.deep.equal({ server: 'lobby', path: 'plugins/x.jar' });
    expect(remoteOf('lobby:')).to.deep.equal({ server: 'lobby', path: '' });
    expect(remoteOf('./a:b')).to.equal(undefined);
    expect(remoteOf('/tmp/file')).to.equal(undefined);
    expect(remoteOf('file.txt')).to.equal(undefined);
  });

  it('the Agent command names the link the Controller reports, or the host the CLI reached', () => {
    const plain: AgentLink = { port: 8443, tls: false };
    expect(agentCommand(plain, 'http://ctl.example:8080', 'cairn_enr_x', '/var/lib/cairn-agent', undefined))
      .to.equal('cairn-agent --controller ctl.example:8443 --data-dir /var/lib/cairn-agent --enrollment-token cairn_enr_x');
    expect(agentCommand({ host: '10.0.0.5', port: 9000, tls: true }, 'http://127.0.0.1:8080', 't', '/srv/my agent', '/etc/cairn/ca.pem'))
      .to.equal("cairn-agent --controller 10.0.0.5:9000 --data-dir '/srv/my agent' --enrollment-token t --controller-ca /etc/cairn/ca.pem");
    expect(agentCommand({ host: '::1', port: 1, tls: false }, 'http://x', 't', 'd', undefined)).to.include("--controller '[::1]:1'");
    expect(shellQuote("it's")).to.equal("'it'\\''s'");
  });

  it('wait --for conditions read the server as the watch sends it', () => {
    const s = (over: Partial<ServerItem>) => ({ phase: 'READY', desiredState: 'STOPPED', convergence: 'CONVERGED', ...over }) as ServerItem;
    expect(conditionMet('running', s({ runtimeState: 'RUNNING' }))).to.equal(true);
    expect(conditionMet('running', s({ runtimeState: 'STARTING' }))).to.equal(false);
    expect(conditionMet('stopped', s({ runtimeState: 'STOPPED' }))).to.equal(true);
    expect(conditionMet('stopped', s({}))).to.equal(true);
    expect(conditionMet('stopped', s({ phase: 'PROVISIONING' }))).to.equal(false);
    expect(conditionMet('converged', s({ convergence: 'IN_PROGRESS' }))).to.equal(false);
    expect(conditionMet('ready', s({ phase: 'PROVISIONING' }))).to.equal(false);
    expect(conditionMet('deleted', s({}))).to.equal(false);
    expect(conditionMet('deleted', undefined)).to.equal(true);
    expect(conditionMet('running', undefined)).to.equal(false);
  });
});
