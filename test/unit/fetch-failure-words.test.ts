import { expect } from 'chai';
import { fetchFailureWords, softwareDownloadFailure } from '../../src/controller/adapters/software/fetch-failure-words.js';
import { splitDetails } from '../../src/shared/failure-text.js';

/** What fetch throws: a TypeError whose cause carries the system error's code. */
const fetchError = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`getaddrinfo ${code}`), { code }) });
const timeout = () => Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
const hash = 'ab'.repeat(32);

describe('a failed upstream request in words', () => {
  it('names what failed on the host: a lookup, a refusal, no route, a deadline', () => {
    const url = 'https://fill-data.papermc.io/v1/objects/x/paper.jar';
    expect(fetchFailureWords(url, fetchError('ENOTFOUND'), 10_000)).to.equal('could not look up fill-data.papermc.io (ENOTFOUND: no DNS answer for it)');
    expect(fetchFailureWords(url, fetchError('EAI_AGAIN'), 10_000)).to.match(/^could not look up fill-data\.papermc\.io /);
    expect(fetchFailureWords('http://127.0.0.1:1/v3', fetchError('ECONNREFUSED'), 10_000)).to.equal('could not reach 127.0.0.1:1: ECONNREFUSED');
    expect(fetchFailureWords(url, fetchError('ENETUNREACH'), 10_000)).to.equal('could not reach fill-data.papermc.io: no network route to it (ENETUNREACH)');
    expect(fetchFailureWords(url, timeout(), 120_000)).to.equal('fill-data.papermc.io did not answer within 120 s');
  });

  it('an install that could not download: what failed and what the Controller needs in words, URL and hashes only in the details', () => {
    const url = `https://fill-data.papermc.io/v1/objects/${hash}/paper-1.21.4-232.jar`;
    const unreachable = splitDetails(softwareDownloadFailure(url, 'unreachable', fetchFailureWords(url, fetchError('ENOTFOUND'), 120_000)));
    expect(unreachable.words).to.equal('Could not look up fill-data.papermc.io (ENOTFOUND: no DNS answer for it). The Controller downloads server software itself: it needs outbound HTTPS to fill-data.papermc.io, or a mirror named with --software-source.');
    expect(unreachable.details).to.deep.equal([url]);

    const mismatch = `checksum mismatch: ${url} gave sha256 ${'cd'.repeat(32)}, not ${hash} as listed; nothing unverified is kept or run`;
    const checksum = splitDetails(softwareDownloadFailure(url, 'checksum', mismatch));
    expect(checksum.words).to.match(/^The download from fill-data\.papermc\.io did not match the checksum its listing gives; nothing unverified is kept or run\./);
    expect(checksum.words).not.to.match(/[0-9a-f]{40}/);
    expect(checksum.details).to.deep.equal([mismatch]);

    const status = splitDetails(softwareDownloadFailure(url, 'status', `HTTP 404 from ${url}`));
    expect(status.words).to.equal('fill-data.papermc.io refused the download (HTTP 404). Retry the install, or sync versions: the vendor may no longer offer this build.');
    expect(status.words).not.to.contain(hash);
  });
});
