import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { searchAccounts } from './search-accounts';
import { plural } from '../../shared/text/plural';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const search = searchAccounts({ db, tableName, cipher: appCipher });

export const handler = httpHandler({
  'GET /api/accounts/search': route({
    run: async ({ userId, query, event }) => {
      const showPasswords = query.showPasswords === 'true';
      const found = await search(userId, (query.q ?? '').slice(0, 200), showPasswords);
      // Show Passwords in a search: one security event per answer that carried passwords.
      if (showPasswords && found.count > 0) {
        await recordSecurityEvent(
          { db, tableName },
          {
            userId,
            type: 'passwords_revealed',
            description: `Passwords shown for ${plural(found.count, 'account')} found by a search`,
            severity: 'medium',
            at: new Date(),
            ...requestOrigin(event),
          },
        );
      }
      return found;
    },
  }),
});
