import { updateProfileSchema } from '../../shared/schemas/user';
import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, route } from '../core/http';
import { updateProfile } from '../users/update-profile';
import { dynamoUserRepository } from '../users/user-repository';

const update = updateProfile({ users: dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME')), now: () => new Date() });

export const handler = httpHandler({
  'PUT /api/user/profile': route({ body: updateProfileSchema, run: ({ userId, body }) => update(userId, body) }),
});
