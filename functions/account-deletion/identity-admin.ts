import { AdminDeleteUserCommand, UserNotFoundException, type CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';

/** The user pool, as its administrator. */
export interface IdentityAdmin {
  /** Deletes the user; one already gone counts as deleted (a redelivered job). */
  deleteUser(userId: string): Promise<void>;
}

/**
 * AdminDeleteUser by the user's sub: the pool signs in by e-mail, so Cognito's username is the
 * sub itself (and the local emulator finds a user by sub too).
 */
export function cognitoIdentityAdmin(client: CognitoIdentityProviderClient, userPoolId: string): IdentityAdmin {
  return {
    async deleteUser(userId) {
      try {
        await client.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: userId }));
      } catch (error) {
        if (error instanceof UserNotFoundException || (error as { name?: string })?.name === 'UserNotFoundException') return;
        throw error;
      }
    },
  };
}
