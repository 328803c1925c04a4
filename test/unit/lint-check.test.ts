import { expect } from 'chai';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/lint-check/promises.ts', import.meta.url));

describe('lint check (eslint with eslint.config.js)', function () {
  // Type-aware linting builds a TypeScript program for the fixture's small project first.
  this.timeout(60_000);

  it('leaves its fixtures out of the normal run', async () => {
    expect(await new ESLint({ cwd: repoRoot }).isPathIgnored(fixture)).to.equal(true);
  });

  it('flags a floating promise and a promise passed where a void callback is expected', async () => {
    const [result] = await new ESLint({ cwd: repoRoot, ignore: false }).lintFiles([fixture]);
    expect(result.messages.map((m) => `${m.line}: ${m.ruleId}`)).to.deep.equal([
      '7: @typescript-eslint/no-floating-promises',
      '11: @typescript-eslint/no-misused-promises',
    ]);
  });
});
