import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { humanBytes, ProgressReporter } from '../src/progress.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

describe('progress output', () => {
  it('plain lines off a terminal: files, bytes, percent, and no estimate before a second has passed', () => {
    const out = capture();
    const progress = new ProgressReporter(out.stream, { tty: false });
    progress.update({ phase: 'copy', files: 10, totalFiles: 100, bytes: 2048, totalBytes: 20480 }, true);
    expect(out.text()).toBe('memdir: copy: 10/100 files, 2.0 KiB/20.0 KiB (10%), ? left\n');
  });

  it('on a terminal, one line redrawn in place with a bar, ended by finish()', () => {
    const out = capture();
    const progress = new ProgressReporter(out.stream, { tty: true });
    progress.update({ phase: 'copy', files: 50, totalFiles: 100, bytes: 512, totalBytes: 1024 }, true);
    progress.update({ phase: 'copy', files: 100, totalFiles: 100, bytes: 1024, totalBytes: 1024 }, true);
    progress.finish();
    expect(out.text()).toBe(
      '\r\u001b[2Kcopy    [############............]  50%  50/100 files, 512 B/1.0 KiB, ? left' +
        '\r\u001b[2Kcopy    [########################] 100%  100/100 files, 1.0 KiB/1.0 KiB, 0s left\n',
    );
  });

  it('lines are rate-limited unless forced', () => {
    const out = capture();
    const progress = new ProgressReporter(out.stream, { tty: false, intervalMs: 60_000 });
    for (let files = 1; files <= 5; files++) {
      progress.update({ phase: 'copy', files, totalFiles: 5, bytes: files, totalBytes: 5 });
    }
    expect(out.text().split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('formats sizes for people', () => {
    expect([0, 1023, 1024, 1536, 10 * 1024 ** 2].map(humanBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KiB',
      '1.5 KiB',
      '10.0 MiB',
    ]);
  });
});
