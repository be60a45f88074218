import { randomUUID } from 'node:crypto';
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
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

/**
 * Creates a fresh, confirmed user in the Cognito emulator and signs in (USER_PASSWORD_AUTH). The
 * user is made by the administrator with the invitation suppressed, so no verification e-mail
 * lands in the mail viewer: tests that read the mail viewer see only the mail they cause. The
 * sign-up and its codes are tested on their own (test/integration/cognito-codes.test.ts, e2e).
 */
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
  const { User } = await client.send(
    new AdminCreateUserCommand({
      UserPoolId: pool.userPoolId,
      Username: email,
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'given_name', Value: firstName },
        { Name: 'family_name', Value: lastName },
      ],
    }),
  );
  await client.send(new AdminSetUserPasswordCommand({ UserPoolId: pool.userPoolId, Username: email, Password: password, Permanent: true }));
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
    sub: User!.Attributes!.find((a) => a.Name === 'sub')!.Value!,
    accessToken: AuthenticationResult!.AccessToken!,
    idToken: AuthenticationResult!.IdToken!,
  };
}
