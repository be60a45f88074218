import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { User } from '../../shared/schemas/user';
import { initialsOf, signUpSchema, splitName, updateProfileSchema } from '../../shared/schemas/user';
import { getCurrentUser } from '../../functions/users/get-current-user';
import { updateProfile } from '../../functions/users/update-profile';
import type { UserRepository } from '../../functions/users/user-repository';
import { welcomeEmail } from '../../functions/mail/welcome-email';

function memoryUsers(): UserRepository & { items: Map<string, User> } {
  const items = new Map<string, User>();
  return {
    items,
    get: async (id) => items.get(id),
    createIfAbsent: async (user) => {
      const existing = items.get(user.id);
      if (existing) return { user: existing, created: false };
      items.set(user.id, user);
      return { user, created: true };
    },
    updateProfile: async (id, profile, now) => {
      const user = items.get(id);
      if (!user) return undefined;
      const { company: _old, ...rest } = user;
      const updated: User = { ...rest, firstName: profile.firstName, lastName: profile.lastName, updatedAt: now, ...(profile.company ? { company: profile.company } : {}) };
      items.set(id, updated);
      return updated;
    },
    recordSignIn: async (id, at) => {
      const user = items.get(id);
      if (user && (!user.lastSignInAt || user.lastSignInAt < at)) items.set(id, { ...user, lastSignInAt: at });
    },
    patch: async (id, set, now) => {
      const user = items.get(id);
      if (!user) return undefined;
      const updated = { ...user, ...set, updatedAt: now } as User;
      items.set(id, updated);
      return updated;
    },
    photoKey: async () => undefined,
  };
}

const clock = (iso: string) => () => new Date(iso);

describe('getCurrentUser', () => {
  it('creates a free, active user from the identity on first call and queues one welcome e-mail', async () => {
    const users = memoryUsers();
    const welcomes: string[] = [];
    const current = getCurrentUser({
      users,
      identity: { profile: async () => ({ email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' }) },
      mail: { sendWelcome: async ({ userId }) => void welcomes.push(userId) },
      now: clock('2026-01-02T03:04:05.000Z'),
    });
    const first = await current('sub-1', 'token');
    expect(first).toEqual({
      id: 'sub-1',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      subscriptionPlan: 'free',
      subscriptionStatus: 'active',
      subscriptionCancelAtPeriodEnd: false,
      onboarded: false,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(await current('sub-1', 'token')).toEqual(first);
    expect(welcomes).toEqual(['sub-1']);
  });

  it("records the sign-in from the token's auth_time, only when it is newer than the one stored", async () => {
    const users = memoryUsers();
    const current = getCurrentUser({
      users,
      identity: { profile: async () => ({ email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' }) },
      mail: { sendWelcome: async () => undefined },
      now: clock('2026-01-02T03:04:05.000Z'),
    });
    const signedIn = Date.parse('2026-01-02T03:00:00.000Z') / 1000;
    expect((await current('sub-1', 'token', signedIn)).lastSignInAt).toBe('2026-01-02T03:00:00.000Z');
    expect((await current('sub-1', 'token', signedIn - 3600)).lastSignInAt).toBe('2026-01-02T03:00:00.000Z');
    expect((await current('sub-1', 'token', signedIn + 60)).lastSignInAt).toBe('2026-01-02T03:01:00.000Z');
    expect((await current('sub-1', 'token')).lastSignInAt).toBe('2026-01-02T03:01:00.000Z');
  });
});

describe('updateProfile', () => {
  it('drops an empty company and answers 404 for an unknown user', async () => {
    const users = memoryUsers();
    users.items.set('u', { id: 'u', email: 'u@example.com', firstName: 'A', lastName: 'B', company: 'Old', subscriptionPlan: 'free', subscriptionStatus: 'active', subscriptionCancelAtPeriodEnd: false, createdAt: 't0', updatedAt: 't0' });
    const update = updateProfile({ users, now: clock('2026-05-05T00:00:00.000Z') });
    const updated = await update('u', { firstName: 'C', lastName: 'D', company: '' });
    expect(updated).toMatchObject({ firstName: 'C', lastName: 'D', updatedAt: '2026-05-05T00:00:00.000Z' });
    expect(updated).not.toHaveProperty('company');
    await expect(update('nobody', { firstName: 'x', lastName: 'y' })).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('user schemas', () => {
  it('uses the spec messages', () => {
    const result = updateProfileSchema.safeParse({ firstName: ' ', lastName: 'x'.repeat(101) });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual(['First name is required', 'Last name must be at most 100 characters']);
    // A one-word name has no last name (spec 5): the profile saves without one.
    expect(updateProfileSchema.safeParse({ firstName: 'Cher', lastName: ' ' }).data).toEqual({ firstName: 'Cher', lastName: '' });
    expect(signUpSchema.safeParse({ firstName: 'a', lastName: 'b', email: 'nope', password: 'Aa1!aaaa' }).error?.issues[0]?.message).toBe('Valid email is required');
  });

  it('accepts only passwords meeting the Cognito policy', () => {
    const base = { firstName: 'a', lastName: 'b', email: 'a@b.co' };
    expect(signUpSchema.safeParse({ ...base, password: 'Aa1!aaaa' }).success).toBe(true);
    for (const weak of ['short1!', 'alllower1!', 'ALLUPPER1!', 'NoDigits!!', 'NoSymbol11']) {
      expect(signUpSchema.safeParse({ ...base, password: weak }).success, weak).toBe(false);
    }
  });

  it('builds initials as the spec says', () => {
    expect(initialsOf('', '')).toBe('U');
    expect(initialsOf('ada', '')).toBe('A');
    // 'Tell us about yourself' with one word: the whole name, its first letter.
    expect(splitName('  cher ')).toEqual({ firstName: 'cher', lastName: '' });
    expect(initialsOf(...(Object.values(splitName('cher')) as [string, string]))).toBe('C');
    expect(initialsOf('Ada Augusta', 'king lovelace')).toBe('AL');
    fc.assert(
      fc.property(fc.string(), fc.string(), (first, last) => {
        const initials = initialsOf(first, last);
        expect(initials.length).toBeGreaterThanOrEqual(1);
        expect(initials.length).toBeLessThanOrEqual(4); // two letters, each possibly a surrogate pair
      }),
    );
  });
});

describe('welcomeEmail', () => {
  it('never lets a name inject markup', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const { html } = welcomeEmail({ email: 'a@b.co', firstName: name }, 'https://app.example.com');
        const withoutTemplate = html.replace(/<\/?(p|a)( href="https:\/\/app\.example\.com")?>/g, '');
        expect(withoutTemplate).not.toMatch(/[<>]/);
      }),
    );
  });
});
