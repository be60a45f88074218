/**
 * The words shown for an account changed here after it was provisioned, until the platform has the
 * change. Free of zod: every function that shows an account reaches it (functions/accounts/account-item.ts).
 */
export const platformChangeText = (platform: string): string => `Changed here: not yet updated on ${platform}`;
