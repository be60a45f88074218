import type { User } from '../../shared/schemas/user';
import type { IdentityProvider } from './identity-provider';
import type { UserRepository } from './user-repository';

export interface MailQueue {
  sendWelcome(message: { userId: string }): Promise<void>;
}

export interface GetCurrentUserDeps {
  users: UserRepository;
  identity: IdentityProvider;
  mail: MailQueue;
  now: () => Date;
}

/**
 * GET /api/auth/user.
 * 1. Return the stored user if there is one.
 * 2. Otherwise read e-mail and names from Cognito and create the record (plan free, status active).
 * 3. Queue the welcome e-mail only for the request that really created it.
 */
export const getCurrentUser =
  (deps: GetCurrentUserDeps) =>
  async (userId: string, accessToken: string): Promise<User> => {
    const existing = await deps.users.get(userId);
    if (existing) return existing;

    const profile = await deps.identity.profile(accessToken);
    const now = deps.now().toISOString();
    const { user, created } = await deps.users.createIfAbsent({
      id: userId,
      email: profile.email,
      firstName: profile.firstName,
      lastName: profile.lastName,
      subscriptionPlan: 'free',
      subscriptionStatus: 'active',
      subscriptionCancelAtPeriodEnd: false,
      createdAt: now,
      updatedAt: now,
    });
    if (created) await deps.mail.sendWelcome({ userId });
    return user;
  };
