import { randomUUID } from 'node:crypto';
import {
  AdminConfirmSignUpCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';

export interface TestUser {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  sub: string;
  accessToken: string;
  idToken: string;
}

/** Signs a fresh user up in the Cognito emulator, confirms them and signs in (USER_PASSWORD_AUTH). */
export async function createTestUser(
  cognitoEndpoint: string,
  pool: { userPoolId: string; userPoolClientId: string },
  names: { firstName?: string; lastName?: string } = {},
): Promise<TestUser> {
  const client = new CognitoIdentityProviderClient({
    region: 'us-east-1',
    endpoint: cognitoEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const email = `user-${randomUUID()}@example.com`;
  const password = 'Test-Passw0rd!';
  const firstName = names.firstName ?? 'Ada';
  const lastName = names.lastName ?? 'Lovelace';
  const { UserSub } = await client.send(
    new SignUpCommand({
      ClientId: pool.userPoolClientId,
      Username: email,
      Password: password,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'given_name', Value: firstName },
        { Name: 'family_name', Value: lastName },
      ],
    }),
  );
  await client.send(new AdminConfirmSignUpCommand({ UserPoolId: pool.userPoolId, Username: email }));
  const { AuthenticationResult } = await client.send(
    new InitiateAuthCommand({
      ClientId: pool.userPoolClientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  client.destroy();
  return {
    email,
    password,
    firstName,
    lastName,
    sub: UserSub!,
    accessToken: AuthenticationResult!.AccessToken!,
    idToken: AuthenticationResult!.IdToken!,
  };
}
