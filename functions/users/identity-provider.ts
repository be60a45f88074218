import { GetUserCommand, NotAuthorizedException, UserNotFoundException, type CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { UnauthorizedError } from '../core/errors';

export interface IdentityProfile {
  email: string;
  firstName: string;
  lastName: string;
}

/** Reads the signed-in user's attributes from Cognito with their own access token. */
export interface IdentityProvider {
  profile(accessToken: string): Promise<IdentityProfile>;
}

export function cognitoIdentityProvider(client: CognitoIdentityProviderClient): IdentityProvider {
  return {
    async profile(accessToken) {
      try {
        const { UserAttributes = [] } = await client.send(new GetUserCommand({ AccessToken: accessToken }));
        const attribute = (name: string) => UserAttributes.find((a) => a.Name === name)?.Value ?? '';
        return { email: attribute('email'), firstName: attribute('given_name'), lastName: attribute('family_name') };
      } catch (error) {
        // A deleted user's token may still be within its hour: Cognito no longer knows the user.
        if (error instanceof NotAuthorizedException || error instanceof UserNotFoundException) throw new UnauthorizedError();
        throw error;
      }
    },
  };
}
