import { expect } from 'chai';
import { parseDuration, DurationError } from '../../src/cli/duration.js';
import { formatCpu, formatMemory, humanBytes, parseCpu, parseMemory, QuantityError } from '../../src/cli/quantity.js';

describe('cairn CLI: Kubernetes quantities and durations', () => {
  it('reads CPU as millicores: 500m, 2, 0.25, 1.5', () => {
    expect(parseCpu('500m')).to.equal(500);
    expect(parseCpu('2')).to.equal(2000);
    expect(parseCpu('0.25')).to.equal(250);
    expect(parseCpu('1.5')).to.equal(1500);
    expect(parseCpu('.5')).to.equal(500);
    expect(parseCpu('1k')).to.equal(1_000_000);
  });

  it('reads memory as bytes, binary and decimal suffixes', () => {
    expect(parseMemory('512Mi')).to.equal(512 * 2 ** 20);
    expect(parseMemory('2Gi')).to.equal(2 * 2 ** 30);
    expect(parseMemory('1.5Gi')).to.equal(1.5 * 2 ** 30);
    expect(parseMemory('1G')).to.equal(1e9);
    expect(parseMemory('128974848')).to.equal(128974848);
    expect(parseMemory('1Ti')).to.equal(2 ** 40);
  });

  it('refuses what is not a whole number of millicores or bytes, zero, or not a quantity', () => {
    for (const bad of ['0.0005', '0', '0m', '1.5m', '-1', 'lots', '500 m', '1mi', '']) expect(() => parseCpu(bad), bad).to.throw(QuantityError);
    for (const bad of ['0.5', '1.0000000001Ki', '0Mi', '512MB', '2gb', 'x']) expect(() => parseMemory(bad), bad).to.throw(QuantityError);
    expect(() => parseMemory('512MB')).to.throw(/memory "512MB" is not a quantity \(e\.g\. 512Mi or 2Gi\)/);
  });

  it('prints the shortest exact quantity, and a rounded one for people', () => {
    expect(formatCpu(500)).to.equal('500m');
    expect(formatCpu(2000)).to.equal('2');
    expect(formatCpu(1500)).to.equal('1500m');
    expect(formatMemory(512 * 2 ** 20)).to.equal('512Mi');
    expect(formatMemory(2 * 2 ** 30)).to.equal('2Gi');
    expect(formatMemory(1000)).to.equal('1000');
    expect(humanBytes(1.5 * 2 ** 30)).to.equal('1.5Gi');
    expect(humanBytes(300 * 2 ** 20 + 7)).to.equal('300Mi');
    expect(humanBytes(0)).to.equal('0');
    for (const q of ['1', '250m', '3Gi', '768Mi']) expect(q.endsWith('i') ? formatMemory(parseMemory(q)) : formatCpu(parseCpu(q))).to.equal(q);
  });

  it('reads durations: 60s, 5m, 1h, 500ms, a bare number of seconds', () => {
    expect(parseDuration('60s')).to.equal(60_000);
    expect(parseDuration('5m')).to.equal(300_000);
    expect(parseDuration('1h')).to.equal(3_600_000);
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('1.5s')).to.equal(1500);
    expect(parseDuration('30')).to.equal(30_000);
    for (const bad of ['soon', '1d', '-1s', '']) expect(() => parseDuration(bad), bad).to.throw(DurationError);
  });
});
