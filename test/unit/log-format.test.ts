import { expect } from 'chai';
import { logFormatOf } from '../../src/shared/logger.js';

describe('log format: text for a person at a terminal, JSON lines otherwise', () => {
  it('defaults to text when stderr is a terminal and to JSON when it is not', () => {
    expect(logFormatOf([], {}, true)).to.equal('text');
    expect(logFormatOf([], {}, false)).to.equal('json');
  });

  it('takes --log-format (both spellings) over CAIRN_LOG_FORMAT over the default', () => {
    expect(logFormatOf(['--data-dir', 'd', '--log-format', 'json'], { CAIRN_LOG_FORMAT: 'text' }, true)).to.equal('json');
    expect(logFormatOf(['--log-format=text'], {}, false)).to.equal('text');
    expect(logFormatOf([], { CAIRN_LOG_FORMAT: 'text' }, false)).to.equal('text');
  });

  it('leaves a wrong value to the flag parser (the default meanwhile)', () => {
    expect(logFormatOf(['--log-format', 'xml'], {}, false)).to.equal('json');
  });
});
