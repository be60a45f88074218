import type { CredentialLinkState, CredentialLinkStatus, RevealedCredentials } from '@shared/schemas/credential-links';

/**
 * The public credential-link routes. Plain fetch, no token: the holder is not a user of the app,
 * and a signed-in user who opens a link must not send their own session along with it.
 */
export type LinkOutcome =
  | { kind: 'state'; state: CredentialLinkState }
  | { kind: 'revealed'; credentials: RevealedCredentials }
  /** Used, expired or removed: from the state, or from a reveal that lost (someone else, or the clock, was first). */
  | { kind: 'closed'; status: Exclude<CredentialLinkStatus, 'ready'>; projectName?: string; companyName?: string }
  | { kind: 'invalid' };

/** Both routes take the token in the body (never in a URL: access logs record paths). */
const postToken = (path: string, token: string) =>
  fetch(`/api/credential-links/${path}`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });

const isClosedStatus = (value: unknown): value is Exclude<CredentialLinkStatus, 'ready'> => value === 'used' || value === 'expired' || value === 'removed';

async function outcomeOf(response: Response, ok: (body: unknown) => LinkOutcome): Promise<LinkOutcome> {
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status === 404) return { kind: 'invalid' };
  if (response.ok) return ok(body);
  const details = (body as { details?: { status?: unknown; projectName?: unknown; companyName?: unknown } } | undefined)?.details;
  if (response.status === 410 && isClosedStatus(details?.status)) {
    return {
      kind: 'closed',
      status: details.status,
      ...(typeof details.projectName === 'string' ? { projectName: details.projectName } : {}),
      ...(typeof details.companyName === 'string' ? { companyName: details.companyName } : {}),
    };
  }
  throw new Error(`${response.status}: ${(body as { message?: string } | undefined)?.message ?? response.statusText}`);
}

/** What the link is now. Spends nothing. */
export async function fetchLinkState(token: string): Promise<LinkOutcome> {
  const response = await postToken('state', token);
  return outcomeOf(response, (body) => {
    const state = body as CredentialLinkState;
    return state.status === 'ready'
      ? { kind: 'state', state }
      : { kind: 'closed', status: state.status, ...(state.projectName ? { projectName: state.projectName } : {}), ...(state.companyName ? { companyName: state.companyName } : {}) };
  });
}

/** The credentials, once. */
export async function revealCredentials(token: string): Promise<LinkOutcome> {
  const response = await postToken('reveal', token);
  return outcomeOf(response, (body) => ({ kind: 'revealed', credentials: body as RevealedCredentials }));
}
