import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { searchAccounts } from './search-accounts';

const search = searchAccounts({ db: dynamo(), tableName: requireEnv('TABLE_NAME'), cipher: appCipher });

export const handler = httpHandler({
  'GET /api/accounts/search': route({
    run: ({ userId, query }) => search(userId, (query.q ?? '').slice(0, 200), query.showPasswords === 'true'),
  }),
});
