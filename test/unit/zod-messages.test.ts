import { describe, expect, it } from 'vitest';
import { globalConfig } from 'zod/v4/core';
import { accountEditSchema } from '../../shared/schemas/account-edit';
import { bulkCreateBodySchema, passwordSettingsSchema } from '../../shared/schemas/bulk';

/**
 * The schemas written in zod/mini give zod's English words for the checks they name no message
 * of their own, as the classic API's schemas did (shared/schemas/zod-messages.ts): this file loads
 * no classic schema, as a bundle free of the classic API does.
 */
describe("zod/mini schemas keep zod's English messages", () => {
  it('a wrong type and a bare length check read as before, not "Invalid input"', () => {
    expect(globalConfig.localeError).toBeDefined();
    expect(passwordSettingsSchema.safeParse({ minLength: 'twelve' }).error?.issues.map((issue) => issue.message)).toEqual(['Invalid input: expected number, received string']);
    expect(bulkCreateBodySchema.safeParse({ projectName: 'P', csvData: [{ firstName: 'x'.repeat(1001) }] }).error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['csvData.0.firstName', 'Too big: expected string to have <=1000 characters'],
    ]);
    expect(accountEditSchema.safeParse({ firstName: 'A', lastName: 'B', email: 7 }).error?.issues.map((issue) => issue.message)).toEqual(['Invalid input: expected string, received number']);
  });
});
