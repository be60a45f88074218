import { randomUUID } from 'node:crypto';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../functions/core/keys';
import { dynamoTemplateStore } from '../../functions/email-templates/template-store';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import { testDb } from '../support/api';

/**
 * The one-default rule under a forced interleaving, on DynamoDB Local with the real store: one
 * save reads the default pointer, then waits while a second save finishes, then writes. A racing
 * HTTP test can only hope to hit this order; this one always does.
 */
const TABLE = 'bulkonboard';

const template = (id: string, isDefault: boolean): EmailTemplate => ({
  id,
  name: `T ${id}`,
  subject: 'Your account',
  htmlContent: '<p>Hello {{firstName}}</p>',
  textContent: '',
  brandLogoUrl: '',
  isDefault,
  isActive: true,
  variables: ['firstName'],
  createdAt: '2026-11-22T00:00:00.000Z',
  updatedAt: '2026-11-22T00:00:00.000Z',
});

/**
 * The test table's client, except that the first read of the user's default pointer made through
 * it answers only once `release` is called: its save then writes on what it read before.
 */
function pausedAfterPointerRead(userId: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let readSeen!: () => void;
  const pointerRead = new Promise<void>((resolve) => (readSeen = resolve));
  let paused = false;
  const pointer = JSON.stringify(keys.emailTemplateDefault(userId));
  const db = testDb();
  const client = {
    send: async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
      const result = await db.send(command as never);
      if (!paused && command instanceof GetCommand && JSON.stringify(command.input.Key) === pointer) {
        paused = true;
        readSeen();
        await released;
      }
      return result;
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, pointerRead, release };
}

async function defaultsOf(userId: string) {
  const store = dynamoTemplateStore(testDb(), TABLE);
  const flagged = (await store.list(userId)).filter((t) => t.isDefault).map((t) => t.id);
  const { Item } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.emailTemplateDefault(userId), ConsistentRead: true }));
  return { flagged, pointer: Item?.templateId as string | undefined };
}

/**
 * A user with templates a (the default) and b; `slowSave` reads the pointer, then waits while
 * `meanwhile` saves, then writes. Answers the defaults afterwards.
 */
async function interleave(slowSave: EmailTemplate, meanwhile: EmailTemplate) {
  const userId = `race-${randomUUID()}`;
  const store = dynamoTemplateStore(testDb(), TABLE);
  expect(await store.save(userId, template('a', true), { mustExist: false })).toBe(true);
  expect(await store.save(userId, template('b', false), { mustExist: false })).toBe(true);

  const slow = pausedAfterPointerRead(userId);
  const saving = dynamoTemplateStore(slow.client, TABLE).save(userId, slowSave, { mustExist: true });
  await slow.pointerRead;
  expect(await store.save(userId, meanwhile, { mustExist: true })).toBe(true);
  slow.release();
  expect(await saving).toBe(true);
  return defaultsOf(userId);
}

describe('one default template, whatever the interleaving', () => {
  it('re-saving the default while another template becomes the default leaves one default', async () => {
    // Meanwhile b becomes the default: a loses its flag.
    const { flagged, pointer } = await interleave(template('a', true), template('b', true));
    expect(flagged).toHaveLength(1);
    expect(pointer).toBe(flagged[0]);
  });

  it('saving a template as not default while it becomes the default elsewhere keeps flag and pointer in step', async () => {
    const { flagged, pointer } = await interleave(template('b', false), template('b', true));
    // Whichever save counts last, the pointer names exactly the flagged template (or none).
    expect(pointer === undefined ? [] : [pointer]).toEqual(flagged);
  });
});
