import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import {
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  ForgotPasswordCommand,
  InitiateAuthCommand,
  ResendConfirmationCodeCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { ensureUserPool } from '../../bin/local/bootstrap';
import type { CognitoDelivery } from '../../bin/local/cognito-messages';
import { startCognito, type CognitoEmulator } from '../../bin/local/emulators';
import { projectRoot } from '../../bin/local/settings';

const stack = inject('stack');
const password = 'Test-Passw0rd!';

const cognitoClient = (endpoint: string) =>
  new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

const signUp = (client: CognitoIdentityProviderClient, clientId: string, email: string) =>
  client.send(
    new SignUpCommand({
      ClientId: clientId,
      Username: email,
      Password: password,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'given_name', Value: 'Ada' },
        { Name: 'family_name', Value: 'Lovelace' },
      ],
    }),
  );

/**
 * The code the emulator keeps on the user (what ConfirmSignUp checks against), read from its
 * database file: the file must parse whenever it is read (a torn or overlapped write would not).
 */
function storedCode(dataDir: string, userPoolId: string, email: string): string | undefined {
  const db = JSON.parse(fs.readFileSync(path.join(dataDir, '.cognito', 'db', `${userPoolId}.json`), 'utf8')) as {
    Users: Record<string, { Attributes: { Name: string; Value: string }[]; ConfirmationCode?: string }>;
  };
  return Object.values(db.Users).find((u) => u.Attributes.some((a) => a.Name === 'email' && a.Value === email))?.ConfirmationCode;
}

describe('the Cognito emulator hands every code to the stack', () => {
  // An emulator of its own, so the test sees the deliveries themselves (what `npm start` prints).
  const dataDir = path.join(projectRoot, '.test-data', 'cognito-codes');
  const port = Number(new URL(stack.urls.cognito).port) + 1;
  let emulator: CognitoEmulator;
  const deliveries: CognitoDelivery[] = [];

  beforeAll(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    emulator = await startCognito(port, path.join(dataDir, 'cognito'));
    emulator.onDelivery((d) => void deliveries.push(d));
  });
  afterAll(async () => {
    await emulator?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('50 sign-ups at once: each code is delivered before its SignUp answers, each one confirms, and the users survive a restart', async () => {
    const pool = await ensureUserPool(port, dataDir);
    const client = cognitoClient(`http://127.0.0.1:${port}`);
    const emails = Array.from({ length: 50 }, (_, i) => `burst-${i}-${randomUUID()}@example.com`);
    await Promise.all(emails.map((email) => signUp(client, pool.userPoolClientId, email)));

    expect(deliveries.map((d) => d.destination).sort()).toEqual([...emails].sort());
    for (const email of emails) {
      const delivery = deliveries.find((d) => d.destination === email)!;
      expect(delivery).toMatchObject({ source: 'SignUp', medium: 'EMAIL', userPoolId: pool.userPoolId });
      expect(delivery.code).toBe(storedCode(path.join(dataDir, 'cognito'), pool.userPoolId, email));
      expect(emulator.codes.get(email)).toBe(delivery.code);
    }
    await Promise.all(
      deliveries.map((d) => client.send(new ConfirmSignUpCommand({ ClientId: pool.userPoolClientId, Username: d.destination, ConfirmationCode: d.code }))),
    );

    // The pool's file, written by 100 changes at once, loads again: the same pool, every user.
    await emulator.stop();
    emulator = await startCognito(port, path.join(dataDir, 'cognito'));
    expect(await ensureUserPool(port, dataDir)).toEqual(pool);
    const signIns = await Promise.all(
      emails.map((email) =>
        client.send(
          new InitiateAuthCommand({ ClientId: pool.userPoolClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } }),
        ),
      ),
    );
    expect(signIns.every((s) => s.AuthenticationResult?.AccessToken)).toBe(true);
    client.destroy();
  });
});

interface StoredMail {
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
}
const mailsTo = async (email: string) =>
  ((await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: StoredMail[] }).emails.filter((m) => m.destination.to.includes(email));
const codeIn = (mail: StoredMail) => /The verification code to your new account is (\d{6})/.exec(mail.body.text ?? '')?.[1];

describe('the local stack e-mails Cognito codes to the mail viewer', () => {
  const client = cognitoClient(stack.urls.cognito);
  const { userPoolClientId } = stack.userPool;
  afterAll(() => client.destroy());

  it('8 sign-ups at once: one verification e-mail each, in the mail viewer when SignUp answers, and its code confirms', async () => {
    const emails = Array.from({ length: 8 }, (_, i) => `signup-${i}-${randomUUID()}@example.com`);
    await Promise.all(emails.map((email) => signUp(client, userPoolClientId, email)));

    for (const email of emails) {
      const mails = await mailsTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatchObject({ from: 'no-reply@verificationemail.com', subject: 'Verify your new account' });
      const code = codeIn(mails[0]!);
      expect(code).toBe(storedCode(path.join(stack.dataDir, 'cognito'), stack.userPool.userPoolId, email));
      expect(mails[0]!.body.html).toContain(code);
      await client.send(new ConfirmSignUpCommand({ ClientId: userPoolClientId, Username: email, ConfirmationCode: code! }));
    }
  });

  it('Resend code sends a second e-mail with the new code, and a forgotten password gets its code by e-mail too', async () => {
    const email = `resend-${randomUUID()}@example.com`;
    await signUp(client, userPoolClientId, email);
    await client.send(new ResendConfirmationCodeCommand({ ClientId: userPoolClientId, Username: email }));
    const afterResend = await mailsTo(email);
    expect(afterResend).toHaveLength(2);
    const resent = codeIn(afterResend[1]!)!;
    expect(resent).toBe(storedCode(path.join(stack.dataDir, 'cognito'), stack.userPool.userPoolId, email));
    await client.send(new ConfirmSignUpCommand({ ClientId: userPoolClientId, Username: email, ConfirmationCode: resent }));

    await client.send(new ForgotPasswordCommand({ ClientId: userPoolClientId, Username: email }));
    const afterForgot = await mailsTo(email);
    expect(afterForgot).toHaveLength(3);
    expect(afterForgot[2]!.subject).toBe('Verify your new account');
    const resetCode = codeIn(afterForgot[2]!)!;
    const newPassword = 'Another-Passw0rd!';
    await client.send(new ConfirmForgotPasswordCommand({ ClientId: userPoolClientId, Username: email, ConfirmationCode: resetCode, Password: newPassword }));
    const signIn = await client.send(
      new InitiateAuthCommand({ ClientId: userPoolClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: newPassword } }),
    );
    expect(signIn.AuthenticationResult?.AccessToken).toBeTruthy();
  });
});
