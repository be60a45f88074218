import type { CredentialLinkState, RevealedCredentials } from '../../shared/schemas/credential-links';
import { INVALID_LINK_MESSAGE } from '../../shared/schemas/credential-links';
import { accountPassword } from '../accounts/account-item';
import type { Cipher } from '../core/encryption';
import { GoneError, NotFoundError } from '../core/errors';
import { logger } from '../core/logger';
import type { LinkStore, StoredLink } from './link-store';
import { isLinkTokenShaped, linkStatus, linkTokenHash, loggableLinkId } from './link-token';

export interface CredentialLinkAccessDeps {
  store: LinkStore;
  /** Loaded only by a reveal: a status read never needs the key. */
  cipher: () => Promise<Cipher>;
  now: () => Date;
}

/** Messages of a link that cannot be revealed: the page says the same in its own words. */
export const USED_LINK_MESSAGE = 'These credentials were already shown once. Ask the person who sent you the link for a new one.';
export const EXPIRED_LINK_MESSAGE = 'This link has expired. Ask the person who sent you the link for a new one.';
export const REMOVED_ACCOUNT_MESSAGE = 'The account this link was for no longer exists. Ask the person who sent you the link.';
export const DEACTIVATED_ACCOUNT_MESSAGE = 'The account this link was for has been deactivated. Ask the person who sent you the link.';

const projectNameOf = (project: Record<string, unknown> | undefined): string | undefined =>
  typeof project?.name === 'string' ? project.name : undefined;

/**
 * GET and POST of a one-time credential link (docs/credential-links.md). A token that cannot be
 * one, that names no link, whose link was deleted, or whose owner's account is deleted (or being
 * deleted) all answer the same 404: the answer says nothing about which. Logs name a link by the start of its hash, never by its token.
 */
export function credentialLinkAccess(deps: CredentialLinkAccessDeps) {
  const find = async (token: string): Promise<{ tokenHash: string; link: StoredLink }> => {
    if (!isLinkTokenShaped(token)) throw new NotFoundError(INVALID_LINK_MESSAGE);
    const tokenHash = linkTokenHash(token);
    const link = await deps.store.link(tokenHash);
    // A link whose owner's account is deleted (or being deleted) is an unknown link, not a 'removed' account's.
    if (!link || !(await deps.store.ownerActive(link))) throw new NotFoundError(INVALID_LINK_MESSAGE);
    return { tokenHash, link };
  };

  const refuse = (status: 'used' | 'expired', projectName: string | undefined, companyName: string | undefined): never => {
    throw new GoneError(status === 'used' ? USED_LINK_MESSAGE : EXPIRED_LINK_MESSAGE, { status, ...(projectName ? { projectName } : {}), ...(companyName ? { companyName } : {}) });
  };

  return {
    /**
     * What the page shows before anybody presses 'Show my credentials'. Reads only: mail security
     * scanners fetch links before people do, and must spend nothing.
     */
    async state(token: string): Promise<CredentialLinkState> {
      const { link } = await find(token);
      const status = linkStatus(link, deps.now());
      const [project, account] = await Promise.all([deps.store.project(link), status === 'ready' ? deps.store.account(link) : undefined]);
      const projectName = projectNameOf(project);
      const state: CredentialLinkState = { status: status !== 'ready' ? status : !account ? 'removed' : account.isActive === false ? 'deactivated' : status };
      if (link.companyName) state.companyName = link.companyName;
      if (projectName) state.projectName = projectName;
      if (state.status === 'ready' || state.status === 'expired') state.expiresAt = link.linkExpiresAt;
      return state;
    },

    /**
     * The credentials, to the first caller only. Everything that could fail is done before the
     * link is spent (the account read, the password decrypted), so a failure leaves the link
     * usable; then one conditional write (unused and unexpired) decides among concurrent callers.
     */
    async reveal(token: string): Promise<RevealedCredentials> {
      const { tokenHash, link } = await find(token);
      const [project, account] = await Promise.all([deps.store.project(link), deps.store.account(link)]);
      const projectName = projectNameOf(project) ?? (typeof account?.projectName === 'string' ? account.projectName : '');
      const status = linkStatus(link, deps.now());
      if (status !== 'ready') refuse(status, projectName, link.companyName);
      if (!account) throw new GoneError(REMOVED_ACCOUNT_MESSAGE, { status: 'removed', ...(projectName ? { projectName } : {}), ...(link.companyName ? { companyName: link.companyName } : {}) });
      // A deactivated account's link shows nothing and stays unspent (reactivated, it works again until it expires).
      if (account.isActive === false) throw new GoneError(DEACTIVATED_ACCOUNT_MESSAGE, { status: 'deactivated', ...(projectName ? { projectName } : {}), ...(link.companyName ? { companyName: link.companyName } : {}) });
      const password = accountPassword(await deps.cipher(), account);

      const at = deps.now().toISOString();
      const spent = await deps.store.spend(tokenHash, at);
      if (!spent.spent) {
        if (!spent.link) throw new NotFoundError(INVALID_LINK_MESSAGE);
        refuse(linkStatus(spent.link, deps.now()) === 'used' ? 'used' : 'expired', projectName, link.companyName);
      }
      // The link is spent: from here on the holder must get the credentials, whatever the marker's fate.
      const marked = await deps.store.markViewed(link, at).catch((error: unknown) => {
        logger.error('Credential link revealed, the account could not be marked viewed', { link: loggableLinkId(tokenHash), accountId: link.accountId, reason: error instanceof Error ? error.message : String(error) });
        return true;
      });
      if (!marked) logger.warn('Credential link revealed, its account was removed meanwhile', { link: loggableLinkId(tokenHash), accountId: link.accountId });
      logger.info('Credential link revealed', { link: loggableLinkId(tokenHash), userId: link.userId, accountId: link.accountId });

      const revealed: RevealedCredentials = { username: String(account.username), password, projectName, ...(link.companyName ? { companyName: link.companyName } : {}) };
      if (typeof project?.platformUrl === 'string' && project.platformUrl) revealed.platformUrl = project.platformUrl;
      return revealed;
    },
  };
}
