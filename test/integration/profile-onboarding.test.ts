import { describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { initialsOf, type User } from '../../shared/schemas/user';
import { apiUser, type ApiUser } from '../support/api';

/**
 * Profile facts and the first run on the real stack: the last sign-in from the token's
 * auth_time, 'Tell us about yourself' (POST /api/user/onboarding), the welcome dialog's
 * dismissal kept on the server, and the photo: a presigned POST to the (emulated) bucket, then
 * PUT /api/user/photo, which checks what arrived (s3rver checks no POST policy, so the server's
 * own checks are what this proves) and replaces or removes it.
 */
/** The smallest JPEG there is (1x1): FF D8 FF ... */
const jpeg = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=', 'base64');
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

async function upload(user: ApiUser, body: Buffer, contentType = 'image/jpeg') {
  const form = await user.json<{ key: string; url: string; fields: Record<string, string> }>('/api/user/photo-upload', { method: 'POST' });
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, name === 'Content-Type' ? contentType : value);
  data.append('file', new Blob([new Uint8Array(body)], { type: contentType }), 'photo.jpg');
  const answer = await fetch(form.url, { method: 'POST', body: data });
  expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  return form.key;
}
/** The object's state in the bucket, read as the browser would, through a link the server signs (or not at all). */
const objectStatus = async (url: string) => (await fetch(url)).status;

describe('profile and first run', () => {
  it("records the sign-in from the token's auth_time and keeps it across page loads", async () => {
    const user = await apiUser({ firstName: 'Grace', lastName: 'Hopper' });
    const authTime = decodeJwt(user.accessToken).auth_time as number;
    const me = await user.json<User>('/api/auth/user');
    expect(me.lastSignInAt).toBe(new Date(authTime * 1000).toISOString());
    expect(me.onboarded).toBe(false);
    expect(me.welcomeDismissed).toBeUndefined();
  });

  it("'Tell us about yourself' needs a name after trimming, splits it, and is done once", async () => {
    const user = await apiUser({ firstName: 'Ada', lastName: 'Lovelace' });
    const blank = await user.call('/api/user/onboarding', { method: 'POST', body: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect(await blank.json()).toMatchObject({ message: 'Please enter your name to continue.' });
    expect((await user.json<User>('/api/auth/user')).onboarded).toBe(false);

    const done = await user.json<User>('/api/user/onboarding', { method: 'POST', body: { name: '  Ada  King Lovelace ' } });
    expect(done).toMatchObject({ firstName: 'Ada', lastName: 'King Lovelace', onboarded: true });
    expect(await user.json<User>('/api/auth/user')).toMatchObject({ firstName: 'Ada', lastName: 'King Lovelace', onboarded: true });
    // Bad input is a 400, never a 500.
    expect((await user.call('/api/user/onboarding', { method: 'POST', body: { name: 42 } })).status).toBe(400);
  });

  it('one word is the whole name (spec 5: initials its first letter): the sign-up surname goes, and the Profile form still saves', async () => {
    const user = await apiUser({ firstName: 'Cheryl', lastName: 'Sarkisian' });
    expect(await user.json<User>('/api/user/onboarding', { method: 'POST', body: { name: ' Cher ' } })).toMatchObject({ firstName: 'Cher', lastName: '' });
    const me = await user.json<User>('/api/auth/user');
    expect(me).toMatchObject({ firstName: 'Cher', lastName: '' });
    expect(initialsOf(me.firstName, me.lastName)).toBe('C');
    // The Profile and Settings forms send the name back as it is: a name without a last name saves.
    expect((await user.call('/api/user/profile', { method: 'PUT', body: { firstName: me.firstName, lastName: me.lastName } })).status).toBe(200);
    expect((await user.call('/api/user/settings', { method: 'PUT', body: { account: { firstName: 'Cher', lastName: '' } } })).status).toBe(200);
    // A first name is still required.
    expect((await user.call('/api/user/profile', { method: 'PUT', body: { firstName: ' ', lastName: 'X' } })).status).toBe(400);
  });

  it('the welcome dialog stays dismissed for every later read (another device included)', async () => {
    const user = await apiUser();
    expect((await user.json<User>('/api/user/welcome-dismissal', { method: 'POST' })).welcomeDismissed).toBe(true);
    expect((await user.json<User>('/api/auth/user')).welcomeDismissed).toBe(true);
  });

  it('a JPEG becomes the photo, shown through a signed link; a new one replaces it and deletes the old; remove goes back to initials', async () => {
    const user = await apiUser();
    const first = await upload(user, jpeg);
    expect(first.startsWith(`profile-photos/pending/${user.sub}/`)).toBe(true);
    const withPhoto = await user.json<User>('/api/user/photo', { method: 'PUT', body: { key: first } });
    expect(withPhoto.profileImageUrl).toMatch(/^http/);
    const shown = await fetch(withPhoto.profileImageUrl!);
    expect(shown.status).toBe(200);
    expect(Buffer.from(await shown.arrayBuffer()).equals(jpeg)).toBe(true);
    expect((await user.json<User>('/api/auth/user')).profileImageUrl).toMatch(/^http/);

    const second = await upload(user, jpeg);
    const replaced = await user.json<User>('/api/user/photo', { method: 'PUT', body: { key: second } });
    expect(await objectStatus(replaced.profileImageUrl!)).toBe(200);
    // The first photo's object is gone: its old link no longer finds it.
    expect(await objectStatus(withPhoto.profileImageUrl!)).toBe(404);

    const removed = await user.json<User>('/api/user/photo', { method: 'DELETE' });
    expect(removed.profileImageUrl).toBeUndefined();
    expect(await objectStatus(replaced.profileImageUrl!)).toBe(404);
  });

  it.each([
    ['a PNG (the browser sends JPEGs only)', png, 'Please select an image file.'],
    ['an SVG with a script, labelled image/jpeg', svg, 'Please select an image file.'],
    ['a 6 MB "image"', Buffer.concat([jpeg.subarray(0, 3), Buffer.alloc(6 * 1024 * 1024)]), 'Please select an image smaller than 5MB.'],
  ])('refuses %s with a clear message, deletes it, and keeps the current photo', async (_name, body, message) => {
    const user = await apiUser();
    const good = await upload(user, jpeg);
    const before = await user.json<User>('/api/user/photo', { method: 'PUT', body: { key: good } });
    const bad = await upload(user, body);
    const answer = await user.call('/api/user/photo', { method: 'PUT', body: { key: bad } });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ message });
    // Refused twice: the object was deleted the first time, so the second finds nothing.
    const again = await user.call('/api/user/photo', { method: 'PUT', body: { key: bad } });
    expect(await again.json()).toMatchObject({ message: 'The photo did not arrive. Please try again.' });
    expect(await objectStatus(before.profileImageUrl!)).toBe(200);
    expect((await user.json<User>('/api/auth/user')).profileImageUrl).toMatch(new RegExp(`profile-photos/${user.sub}/${good.split('/').at(-1)!.replace('.', '\\.')}`));
  });

  it('a key that is not under the user\'s own prefix is not found', async () => {
    const user = await apiUser();
    for (const key of ['exports/x/y.csv', `profile-photos/pending/${user.sub}/../other/x.jpg`, `profile-photos/${user.sub}/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.jpg`, 'profile-photos/pending/someone-else/x.jpg']) {
      const answer = await user.call('/api/user/photo', { method: 'PUT', body: { key } });
      expect(answer.status).toBe(404);
    }
  });
});
