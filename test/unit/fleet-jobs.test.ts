import { expect } from 'chai';
import { fleetJobNames, jobOfResource, jobResource, jobsToClaim, type FleetJobName } from '../../src/controller/domain/fleet-jobs.js';
import { FleetJobs, type FleetJob } from '../../src/controller/services/leases/fleet-jobs.js';
import { RecentRecords } from '../../src/controller/services/leases/recent-records.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

describe('fleet-wide jobs', () => {
  describe('their leases', () => {
    it('names each job\'s lease and reads it back; other resources are no job', () => {
      for (const job of fleetJobNames) expect(jobOfResource(jobResource(job))).to.equal(job);
      expect(jobResource('task-schedules')).to.equal('fleet:task-schedules');
      expect(jobOfResource('node:n1')).to.equal(undefined);
      expect(jobOfResource('controller:c1')).to.equal(undefined);
      expect(jobOfResource('fleet:no-such-job')).to.equal(undefined);
    });

    it('a Controller alone claims every job; with others, its share of them', () => {
      expect(jobsToClaim(fleetJobNames, 0, 1, 'a').sort()).to.deep.equal([...fleetJobNames].sort());
      expect(jobsToClaim(fleetJobNames, 0, 2, 'a')).to.have.length(3);
      expect(jobsToClaim(fleetJobNames, 0, 4, 'a')).to.have.length(2);
      expect(jobsToClaim(['audit-prune'], 3, 2, 'a')).to.deep.equal([]);
    });

    it('between them, Controllers at their share leave no job unclaimed', () => {
      for (let live = 1; live <= 7; live++) {
        const held = new Set<FleetJobName>();
        for (let c = 0; c < live; c++) {
          const free = fleetJobNames.filter((j) => !held.has(j));
          for (const job of jobsToClaim(free, 0, live, `controller-${c}`)) held.add(job);
        }
        expect(held.size, `${live} Controllers`).to.equal(fleetJobNames.length);
      }
    });
  });

  describe('starting and stopping them', () => {
    function recorder() {
      const steps: string[] = [];
      let release: (() => void) | undefined;
      const job: FleetJob = {
        start: async () => {
          steps.push('start');
          await new Promise<void>((resolve) => (release = resolve));
          steps.push('started');
        },
        stop: () => {
          steps.push('stop');
          return Promise.resolve();
        },
      };
      return { job, steps, release: () => release?.() };
    }

    it('on the embedded store starts a job where the Controller asks, and never by lease', async () => {
      const jobs = new FleetJobs(false, silentLogger);
      const steps: string[] = [];
      jobs.register('audit-prune', { start: () => Promise.resolve(void steps.push('start')), stop: () => Promise.resolve(void steps.push('stop')) });
      await jobs.startHere('audit-prune');
      expect(steps).to.deep.equal(['start']);
      expect(jobs.held()).to.deep.equal(['audit-prune']);
      await jobs.close();
      expect(steps).to.deep.equal(['start', 'stop']);
      expect(jobs.held()).to.deep.equal([]);
    });

    it('on MongoDB leaves the start to the lease', async () => {
      const jobs = new FleetJobs(true, silentLogger);
      const steps: string[] = [];
      jobs.register('audit-prune', { start: () => Promise.resolve(void steps.push('start')), stop: () => Promise.resolve(void steps.push('stop')) });
      await jobs.startHere('audit-prune');
      expect(steps).to.deep.equal([]);
      await jobs.gained('audit-prune');
      await jobs.gained('audit-prune');
      expect(steps).to.deep.equal(['start']);
      await jobs.lost('audit-prune');
      await jobs.lost('audit-prune');
      expect(steps).to.deep.equal(['start', 'stop']);
    });

    it('a lease lost while its job is starting stops the job once the start is done, never beside it', async () => {
      const jobs = new FleetJobs(true, silentLogger);
      const r = recorder();
      jobs.register('task-schedules', r.job);
      const started = jobs.gained('task-schedules');
      const stopped = jobs.lost('task-schedules');
      expect(jobs.held()).to.deep.equal([]);
      await Promise.resolve();
      expect(r.steps).to.deep.equal(['start']);
      r.release();
      await Promise.all([started, stopped]);
      expect(r.steps).to.deep.equal(['start', 'started', 'stop']);
    });

    it('once closed, a lease gained starts nothing', async () => {
      const jobs = new FleetJobs(true, silentLogger);
      const steps: string[] = [];
      jobs.register('catalog-sync', { start: () => Promise.resolve(void steps.push('start')), stop: () => Promise.resolve(void steps.push('stop')) });
      await jobs.close();
      await jobs.gained('catalog-sync');
      expect(steps).to.deep.equal([]);
      expect(jobs.held()).to.deep.equal([]);
    });

    it('a job that fails to start does not run, says so, and the next gain tries it again', async () => {
      const jobs = new FleetJobs(true, silentLogger);
      let tries = 0;
      jobs.register('software-sync', { start: () => (++tries === 1 ? Promise.reject(new Error('store down')) : Promise.resolve()), stop: () => Promise.resolve() });
      expect(await jobs.gained('software-sync')).to.equal(false);
      expect(jobs.held()).to.deep.equal([]);
      expect(await jobs.gained('software-sync')).to.equal(true);
      expect(tries).to.equal(2);
      expect(jobs.held()).to.deep.equal(['software-sync']);
    });
  });
});

describe('records changed through other Controllers', () => {
  it('hands each version of a recent record over once, looks from the skew margin back, and stops looking when stopped', async () => {
    const docs = [{ _id: 's1', updatedAt: '2030-01-01T00:00:00.000Z' }];
    const sinces: string[] = [];
    const changed: string[] = [];
    const clock = { now: () => new Date('2030-01-01T00:01:00.000Z') };
    const recent = new RecentRecords('schedules', (since) => {
      sinces.push(since);
      return Promise.resolve(docs.map((d) => ({ ...d })));
    }, (d) => d.updatedAt, (d) => changed.push(`${d._id} ${d.updatedAt}`), { clock, logger: silentLogger }, 5);
    recent.start();
    await waitFor(() => sinces.length >= 3, { what: 'three looks' });
    expect(changed).to.deep.equal(['s1 2030-01-01T00:00:00.000Z']);
    expect(sinces[0]).to.equal('2029-12-31T23:56:00.000Z');
    docs.push({ _id: 's2', updatedAt: '2030-01-01T00:00:30.000Z' });
    docs[0].updatedAt = '2030-01-01T00:00:40.000Z';
    await waitFor(() => changed.length === 3, { what: 'the new versions' });
    expect(changed.slice(1).sort()).to.deep.equal(['s1 2030-01-01T00:00:40.000Z', 's2 2030-01-01T00:00:30.000Z']);
    recent.stop();
    const looks = sinces.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sinces.length).to.be.at.most(looks + 1);
  });
});
