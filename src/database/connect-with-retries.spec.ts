import { describe, expect, it } from '@jest/globals';
import { connectWithRetries } from './connect-with-retries';

const refusal = (code: string, message: string) => Object.assign(new Error(message), { code });
const failing = (error: Error) => () => Promise.reject(error);

describe('connectWithRetries', () => {
  it('says, when a pooler refuses the migrations\' startup parameter, to set DATABASE_DIRECT_URL', async () => {
    await expect(
      connectWithRetries('postgres://u:secret@bouncer:6432/oracle', failing(refusal('08P01', 'unsupported startup parameter: statement_timeout')), () => undefined),
    ).rejects.toThrow(
      'the database at bouncer:6432/oracle refused the connection: 08P01: unsupported startup parameter: statement_timeout ' +
        '(a pooler: set DATABASE_DIRECT_URL to the database itself, where migrations run)',
    );
  });

  it('names the URL, its credentials and the pooler for other refusals, never the password', async () => {
    const refused = connectWithRetries('postgres://u:secret@db:5432/oracle', failing(refusal('28P01', 'password authentication failed for user "u"')), () => undefined);
    await expect(refused).rejects.toThrow(/refused the connection: 28P01: password authentication failed for user "u" \(check the URL, its credentials and the pooler's settings\)$/);
    await expect(refused).rejects.not.toThrow(/secret/);
  });
});
