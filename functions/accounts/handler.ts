import { dynamo, sqs } from '../core/clients';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { attributeRecountStarter } from './attribute-recount';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { searchAccounts } from './search-accounts';
import { browseAccounts } from './browse-accounts';
import { directoryQuerySchema } from '../../shared/schemas/account-directory';
import { ValidationError } from '../core/errors';
import { editAccount } from './edit-account';
import { accountHistory, parseHistoryLimit } from './account-history';
import { accountEditSchema } from '../../shared/schemas/account-edit';
import { plural } from '../../shared/text/plural';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const search = searchAccounts({ db, tableName, cipher: appCipher });
const browse = browseAccounts({ db, tableName, cipher: appCipher, recountAttributes: attributeRecountStarter({ db, tableName, queue: sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL')) }) });
const edit = editAccount({ db, tableName });
const history = accountHistory({ db, tableName });

export const handler = httpHandler({
  // The Account Database without a term: paged, sorted, filtered (docs/data-model.md, "The Account Database as a directory").
  'GET /api/accounts': route({
    run: async ({ userId, query, event }) => {
      const parsed = directoryQuerySchema.safeParse(query);
      if (!parsed.success) {
        const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
        throw new ValidationError(details[0]?.message ?? 'Invalid request', details);
      }
      const { itemsRead: _read, ...page } = await browse(userId, parsed.data);
      const shown = page.items.filter((account) => account.password !== undefined).length;
      if (shown > 0) {
        await recordSecurityEvent(
          { db, tableName },
          { userId, type: 'passwords_revealed', description: `Passwords shown for ${plural(shown, 'account')} in the Account Database`, severity: 'medium', at: new Date(), ...requestOrigin(event) },
        );
      }
      return page;
    },
  }),
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
