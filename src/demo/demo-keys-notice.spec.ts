import { describe, expect, it, jest } from '@jest/globals';
import { ADMIN_KEY_REPLACED, printDemoKeys } from './demo-keys-notice';

describe('the demo keys notice', () => {
  const printed = (notes?: string[]) => {
    const chunks: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (chunks.push(String(chunk)), true));
    try {
      printDemoKeys({ apiKey: 'sok_a', adminKey: 'soa_b' }, 'New demo keys.', notes);
    } finally {
      write.mockRestore();
    }
    return chunks.join('').split('\n');
  };

  it('says, below the new keys, that the admin key issued before no longer works (npm run demo:keys)', () => {
    const lines = printed(ADMIN_KEY_REPLACED);
    const keys = lines.indexOf('    export ADMIN_KEY=soa_b');
    expect(lines.slice(keys + 1, keys + 5)).toEqual(['', ...ADMIN_KEY_REPLACED, '']);
    expect(ADMIN_KEY_REPLACED.join(' ')).toMatch(/^The ADMIN_KEY issued before no longer works/);
  });

  it('shows the keys alone on a first start', () => {
    const lines = printed();
    const keys = lines.indexOf('    export ADMIN_KEY=soa_b');
    expect(lines[keys + 2]).toMatch(/^Lost them\?/);
  });
});
