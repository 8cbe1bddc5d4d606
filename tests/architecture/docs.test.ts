import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brokenLinks, documentationFiles, headingAnchors, relativeLinks, repoRoot } from '../../scripts/readme-commands.ts';

// The documentation's links, checked on the files: every relative link of README.md and docs/*.md names a file that
// exists, and a heading of it when it has an anchor.
describe('documentation', () => {
  it('every relative link of the README and docs/ leads to a file, and to a heading of it', () => {
    expect(brokenLinks()).toEqual([]);
  });

  it('the README stays short, and every docs page starts with its table of contents', () => {
    expect(readFileSync(path.join(repoRoot, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(260);
    for (const page of documentationFiles().filter((file) => file.startsWith('docs/'))) {
      const text = readFileSync(path.join(repoRoot, page), 'utf8');
      const contents = text.slice(text.indexOf('Contents:'), text.indexOf('\n## '));
      expect([page, text.indexOf('Contents:') > 0 && text.indexOf('Contents:') < text.indexOf('\n## ')]).toEqual([page, true]);
      expect([page, relativeLinks(contents).length]).not.toEqual([page, 0]);
    }
  });

  it('finds anchors as GitHub makes them, and a broken link when there is one', () => {
    expect(headingAnchors('# A\n## Keys and modes\n```sh\n# not a heading\n```\n### `message.send` with tracing\n## Keys and modes')).toEqual([
      'a',
      'keys-and-modes',
      'messagesend-with-tracing',
      'keys-and-modes-1',
    ]);
    expect(relativeLinks('[a](docs/x.md#y) [b](https://example.com) `[c](z.md)` ![d](../e.png)')).toEqual(['docs/x.md#y', '../e.png']);
  });
});
