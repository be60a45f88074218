import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { projectRoot } from '../../bin/local/settings';

/**
 * The access token a user holds hours after signing in: Cognito keeps the sign-in's auth_time on
 * every token a refresh gives, while iat and exp are new. The emulator sets auth_time anew on a
 * refresh, so tests make that token themselves, signed with the emulator's own key (the one its
 * JWKS publishes, so the local gateway verifies it like any other): the user's claims, with
 * `auth_time` the given epoch seconds.
 */
export async function accessTokenSignedInAt(accessToken: string, authTime: number): Promise<string> {
  const { jwk } = JSON.parse(readFileSync(path.join(projectRoot, 'node_modules/cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8')) as { jwk: Record<string, string> };
  const claims = decodeJwt(accessToken);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...claims, auth_time: authTime, iat: now, exp: now + 3600 })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid! })
    .sign(await importJWK(jwk, 'RS256'));
}

/** The auth_time of an access token. */
export const authTimeOf = (accessToken: string): number => Number(decodeJwt(accessToken).auth_time);
