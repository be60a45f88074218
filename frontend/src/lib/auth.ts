/**
 * Entry point to Amplify Auth. Amplify and the runtime config (validated with zod) load on
 * demand, in their own chunks, so the signed-out landing page downloads neither; every caller
 * gets an already configured module.
 */
export type AmplifyAuth = typeof import('./amplify-auth');

let authPromise: Promise<AmplifyAuth> | undefined;

export function loadAuth(): Promise<AmplifyAuth> {
  authPromise ??= Promise.all([import('./config').then((module) => module.loadConfig()), import('./amplify-auth')])
    .then(([config, auth]) => {
      auth.configureAuth(config);
      return auth;
    })
    .catch((error: unknown) => {
      authPromise = undefined;
      throw error;
    });
  return authPromise;
}

// Amplify keeps its tokens in localStorage (its default token storage) under
// "CognitoIdentityServiceProvider.<app client id>.<user>.<token>" plus "...<client id>.LastAuthUser".
const TOKEN_KEY_PREFIX = 'CognitoIdentityServiceProvider.';
const isLastAuthUserKey = (key: string) => key.startsWith(TOKEN_KEY_PREFIX) && key.endsWith('.LastAuthUser');

function storageKeys(): string[] {
  try {
    return Object.keys(window.localStorage);
  } catch {
    return []; // storage unavailable: nothing can have been stored either
  }
}

/**
 * Cheap check before loading Amplify: without a stored "last user" there can be no session, so
 * the signed-out screens render without downloading the auth code or the config at all.
 */
export const hasStoredTokens = (): boolean => storageKeys().some(isLastAuthUserKey);

/** Drops every Cognito token stored by this origin (when the server or Amplify says they are no good). */
export function clearStoredTokens(): void {
  for (const key of storageKeys()) {
    if (key.startsWith(TOKEN_KEY_PREFIX)) window.localStorage.removeItem(key);
  }
}
