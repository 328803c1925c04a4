import { expect } from 'chai';
import type { ServerDetail } from './api-types.js';
import { GiB, waitForServer, type Fleet } from './fleet.js';

const enc = encodeURIComponent;

/**
 * A fleet's simcraft servers made READY and their files written through the API, as the backup
 * tests set worlds up: `createServer` in the fleet's team (or `teamId`), on `nodeId` when given.
 */
export function serverFiles(f: Fleet) {
  return {
    async createServer(name: string, where: { teamId?: string; nodeId?: string } = {}): Promise<string> {
      const res = await f.admin.post<ServerDetail>('/servers', {
        name, teamId: where.teamId ?? f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB },
        ...(where.nodeId ? { nodeId: where.nodeId } : {}),
      });
      expect(res.status, res.text).to.equal(201);
      await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
      return res.body.id;
    },
    async put(id: string, path: string, content: Buffer): Promise<void> {
      const res = await f.admin.put(`/servers/${id}/files/content?path=${enc(path)}`, undefined, { rawBody: content });
      expect(res.status, res.text).to.equal(204);
    },
    async mkdir(id: string, path: string): Promise<void> {
      const res = await f.admin.post(`/servers/${id}/files/directories?path=${enc(path)}`);
      expect(res.status, res.text).to.be.oneOf([201, 409]);
    },
  };
}
