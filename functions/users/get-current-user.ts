import { PASSWORD_CHANGED_AT_ATTRIBUTE } from '../../shared/schemas/security';
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
 * 4. Record the sign-in (below).
 */
export const getCurrentUser =
  (deps: GetCurrentUserDeps) =>
  async (userId: string, accessToken: string, authTime?: number): Promise<User> => {
    const user = await storedOrCreated(deps, userId, accessToken);
    // 4. The sign-in this token comes from (auth_time, seconds) is the user's last sign-in; written
    //    only when newer than the one stored, so once per sign-in, not once per page load.
    if (authTime === undefined || !Number.isFinite(authTime)) return user;
    const signedInAt = new Date(authTime * 1000).toISOString();
    if (user.lastSignInAt !== undefined && user.lastSignInAt >= signedInAt) return user;
    await deps.users.recordSignIn(userId, signedInAt);
    return { ...user, lastSignInAt: signedInAt };
  };

async function storedOrCreated(deps: GetCurrentUserDeps, userId: string, accessToken: string): Promise<User> {
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
      // 'Tell us about yourself' is for users who start now (those from before never see it).
      onboarded: false,
      createdAt: now,
      updatedAt: now,
      // The password's age (the Security Center's password expiry) counts from here until it is changed or reset.
    }, { [PASSWORD_CHANGED_AT_ATTRIBUTE]: now });
    if (created) await deps.mail.sendWelcome({ userId });
    return user;
}
