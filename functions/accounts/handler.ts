import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { searchAccounts } from './search-accounts';
import { editAccount } from './edit-account';
import { accountHistory, parseHistoryLimit } from './account-history';
import { accountEditSchema } from '../../shared/schemas/account-edit';
import { plural } from '../../shared/text/plural';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const search = searchAccounts({ db, tableName, cipher: appCipher });
const edit = editAccount({ db, tableName });
const history = accountHistory({ db, tableName });

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
  // Free and Pro alike: editing is not a platform operation.
  'PUT /api/accounts/{id}': route({
    body: accountEditSchema,
    run: ({ userId, pathParameters, body, event }) => edit(userId, pathParameters.id ?? '', body, requestOrigin(event)),
  }),
  'GET /api/accounts/{id}/history': route({
    run: ({ userId, pathParameters, query }) => history(userId, pathParameters.id ?? '', { limit: parseHistoryLimit(query.limit), ...(query.cursor ? { cursor: query.cursor } : {}) }),
  }),
});
