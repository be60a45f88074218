import type { UpdateProfileInput, User } from '../../shared/schemas/user';
import { NotFoundError } from '../core/errors';
import type { UserRepository } from './user-repository';

/** PUT /api/user/profile: names and company; the e-mail is Cognito's and cannot change here. */
export const updateProfile =
  (deps: { users: UserRepository; now: () => Date }) =>
  async (userId: string, input: UpdateProfileInput): Promise<User> => {
    const company = input.company === '' ? undefined : input.company;
    const user = await deps.users.updateProfile(userId, { ...input, company }, deps.now().toISOString());
    if (!user) throw new NotFoundError('User not found');
    return user;
  };
