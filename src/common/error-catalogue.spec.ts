import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCatalogue } from './error-catalogue';

const root = process.cwd(); // Jest runs from the project's folder
const CATALOGUE = new Map(Object.values(ErrorCatalogue).map(({ code, msg }) => [String(code), msg]));

/** Each table row's codes and messages, "4100 / 4101" rows split. */
function documented(file: string, codeColumn: number, msgColumn: number): [string, string][] {
  return readFileSync(join(root, file), 'utf8')
    .split('\n')
    .filter((line) => /^\| \d{4}/.test(line))
    .flatMap((line) => {
      const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
      const codes = cells[codeColumn].split(' / ');
      const msgs = cells[msgColumn].split(' / ');
      return codes.map((code, i): [string, string] => [code, msgs[i] ?? msgs[0]]);
    });
}

describe('the error tables of the docs', () => {
  it('README lists every code of the catalogue with its msg', () => {
    const rows = documented('README.md', 0, 2);
    expect(new Map(rows)).toEqual(CATALOGUE);
  });

  it("docs/partners.md's codes and msgs are the catalogue's", () => {
    for (const [code, msg] of documented('docs/partners.md', 0, 1)) expect([code, msg]).toEqual([code, CATALOGUE.get(code)]);
  });
});
