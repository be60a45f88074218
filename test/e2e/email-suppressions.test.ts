/// <reference lib="dom" />
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { testDb, type ApiUser } from '../support/api';
import { axeViolations, settle } from '../support/a11y';
import { screenshotPath, userInChromium } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;
const TABLE = 'bulkonboard';

/**
 * What the credentials sender does for one account (a real SendEmail to the SES emulator, the
 * mailMessage record, status 'sent'); the stack then publishes SES's events and the mail-events
 * worker puts a bounced or complained address on the user's suppression list.
 */
async function sendCredentialMail(user: ApiUser, projectId: string, email: string): Promise<void> {
  const db = testDb();
  const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, projectId).PK }, ConsistentRead: true }));
  const account = Items.find((item) => item.email === email);
  if (!account) throw new Error(`no account for ${email}`);
  const ses = new SESv2Client({ region: 'us-east-1', endpoint: stack.urls.ses, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { MessageId } = await ses.send(
    new SendEmailCommand({ FromEmailAddress: 'no-reply@bulkonboard.local', Destination: { ToAddresses: [email] }, ConfigurationSetName: 'bulkonboard', Content: { Simple: { Subject: { Data: 'Your account' }, Body: { Text: { Data: 'Hello' } } } } }),
  );
  ses.destroy();
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...keys.mailMessage(MessageId!), entityType: 'MailMessage', userId: user.sub, projectId, accountId: account.id, accountPK: account.PK, accountSK: account.SK, email, sentAt: new Date().toISOString(), expiresAt: Math.floor(Date.now() / 1000) + 86_400 },
    }),
  );
  await db.send(new UpdateCommand({ TableName: TABLE, Key: { PK: account.PK, SK: account.SK }, UpdateExpression: 'SET emailStatus = :sent, emailMessageId = :id', ExpressionAttributeValues: { ':sent': 'sent', ':id': MessageId } }));
}

/** The 'Suppressed addresses' card on the Email Templates page, on the free plan (not a Pro feature). */
describe('Suppressed addresses in Chromium', () => {
  const session = userInChromium('email-suppressions', { firstName: 'Suppression', lastName: 'Tester' });
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    ({ page, user } = session);
  });

  const card = () => page.getByRole('region', { name: 'Suppressed addresses' });
  const entries = () => card().getByRole('list', { name: 'Suppressed addresses' }).getByRole('listitem');

  it('shows the empty state, then the bounced and complained addresses with reason, diagnostic and date', async () => {
    await page.goto(`${app}/email-templates`);
    await card().getByText('No suppressed addresses.', { exact: false }).waitFor();

    const { project } = await user.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
      body: {
        projectName: 'Simulator',
        csvData: [
          { firstName: 'Bo', lastName: 'Unce', email: 'bounce@simulator.amazonses.com' },
          { firstName: 'Com', lastName: 'Plaint', email: 'complaint@simulator.amazonses.com' },
        ],
      },
    });
    await sendCredentialMail(user, project.id, 'bounce@simulator.amazonses.com');
    await sendCredentialMail(user, project.id, 'complaint@simulator.amazonses.com');
    await expect.poll(async () => (await user.json<unknown[]>('/api/email-suppressions')).length).toBe(2);

    await page.reload();
    await entries().first().waitFor();
    expect(await entries().count()).toBe(2);
    const bounced = entries().filter({ hasText: 'bounce@simulator.amazonses.com' });
    await bounced.getByText('Bounced', { exact: true }).waitFor();
    await bounced.getByText('smtp; 550 5.1.1 user unknown', { exact: false }).waitFor();
    // The user's date format and timezone (defaults: MM/DD/YYYY, UTC).
    const [year, month, day] = new Date().toISOString().slice(0, 10).split('-');
    const today = `${month}/${day}/${year}`;
    await bounced.getByText(`Since ${today}`, { exact: false }).waitFor();
    await entries().filter({ hasText: 'complaint@simulator.amazonses.com' }).getByText('Marked as spam', { exact: true }).waitFor();

    await settle(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('email-suppressions-list'), fullPage: true, animations: 'disabled' });
  });

  it('removes an address after confirmation, with a toast; one removed meanwhile says so and the list catches up', async () => {
    await card().getByRole('button', { name: 'Remove bounce@simulator.amazonses.com' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove from the suppression list?' });
    await dialog.getByText('It bounced before', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await entries().count()).toBe(2);

    await card().getByRole('button', { name: 'Remove bounce@simulator.amazonses.com' }).click();
    await dialog.getByRole('button', { name: 'Remove Address' }).click();
    await page.getByText('Address removed').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => entries().count()).toBe(1);
    expect((await user.json<{ email: string }[]>('/api/email-suppressions')).map((s) => s.email)).toEqual(['complaint@simulator.amazonses.com']);

    // Removed in another tab meanwhile: the server answers 404, the page says so and empties.
    expect((await user.call('/api/email-suppressions/complaint%40simulator.amazonses.com', { method: 'DELETE' })).status).toBe(204);
    await card().getByRole('button', { name: 'Remove complaint@simulator.amazonses.com' }).click();
    await dialog.getByText('marked an earlier e-mail as spam', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Remove Address' }).click();
    await page.getByText('Remove failed').waitFor();
    await page.getByText('is no longer on your suppression list', { exact: false }).waitFor();
    await card().getByText('No suppressed addresses.', { exact: false }).waitFor();
  });
});
