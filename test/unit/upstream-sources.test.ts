import { expect } from 'chai';
import { defaultUpstreamBases, parseUpstreamBases } from '../../src/controller/adapters/software/upstream-sources.js';

describe('--software-source: the software upstreams and the catalog\'s Hangar', () => {
  it('hangar=URL sets the catalog\'s Hangar base beside modrinth=URL; the defaults are the public APIs', () => {
    expect(defaultUpstreamBases).to.include({ modrinth: 'https://api.modrinth.com/v2', hangar: 'https://hangar.papermc.io/api/v1' });
    const parsed = parseUpstreamBases(['modrinth=http://127.0.0.1:9/v2', 'hangar=http://127.0.0.1:9/api/v1']);
    expect(parsed).to.have.nested.property('bases.hangar', 'http://127.0.0.1:9/api/v1');
    expect(parsed).to.have.nested.property('bases.papermc', defaultUpstreamBases.papermc);
  });

  it('an unknown name or a URL that is not http(s) is refused, naming the entry', () => {
    expect(parseUpstreamBases(['hangars=http://x'])).to.have.property('problem').that.includes('hangar=URL');
    expect(parseUpstreamBases(['hangar=ftp://x'])).to.have.property('problem').that.includes('http://');
  });
});
