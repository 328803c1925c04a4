import { expect } from 'chai';
import { databaseNameOf } from '../../src/controller/store/mongo/mongo-adapter.js';
import { withDatabase } from '../support/mongo-db.js';

describe('MongoDB adapter: database name from the URI', () => {
  it('takes the path of single-host, multi-host and SRV URIs, and defaults to cairn', () => {
    expect(databaseNameOf('mongodb://localhost:27017/fleet')).to.equal('fleet');
    expect(databaseNameOf('mongodb://localhost:27017')).to.equal('cairn');
    expect(databaseNameOf('mongodb://localhost:27017/')).to.equal('cairn');
    expect(databaseNameOf('mongodb://u:p%40ss@h1:27017,h2:27017,h3:27017/fleet?replicaSet=rs0')).to.equal('fleet');
    expect(databaseNameOf('mongodb://h1,h2/?replicaSet=rs0')).to.equal('cairn');
    expect(databaseNameOf('mongodb+srv://cluster0.example.net/prod?retryWrites=true')).to.equal('prod');
    expect(withDatabase('mongodb://h1,h2/old?replicaSet=rs0', 'new')).to.equal('mongodb://h1,h2/new?replicaSet=rs0');
    expect(withDatabase('mongodb://u:p@h1/old', 'new')).to.equal('mongodb://u:p@h1/new?authSource=old');
    expect(withDatabase('mongodb://u:p@h1', 'new')).to.equal('mongodb://u:p@h1/new?authSource=admin');
  });
});
