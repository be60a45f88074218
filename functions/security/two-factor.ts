import { randomUUID } from 'node:crypto';
import type { SecuritySettings } from '../../shared/schemas/security';
import type { TwoFactorSetup } from '../../shared/schemas/two-factor';
import {
  TWO_FACTOR_ALREADY_OFF_MESSAGE,
  TWO_FACTOR_ALREADY_ON_MESSAGE,
  TWO_FACTOR_NO_SETUP_MESSAGE,
  TWO_FACTOR_REUSED_CODE_MESSAGE,
  TWO_FACTOR_SETUP_BUSY_MESSAGE,
  TWO_FACTOR_SETUP_REPLACED_MESSAGE,
  TWO_FACTOR_WRONG_CODE_MESSAGE,
} from '../../shared/schemas/two-factor';
import { secretContext, type Cipher } from '../core/encryption';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { checkCode, otpauthUri } from './two-factor-codes';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from './security-events';

/**
 * Two-factor authentication (TOTP through Cognito, which asks for the code at sign-in):
 * setup → AssociateSoftwareToken gives a secret, shown as a QR code; enable {code} →
 * VerifySoftwareToken and SetUserMFAPreference; disable {code} → the code is checked here (Cognito
 * has no call that checks a code outside a sign-in) against the secret kept encrypted on the user
 * item, a code used once is refused, then SetUserMFAPreference turns it off.
 */

/** Cognito's calls, made with the user's own access token. */
export interface SoftwareTokenProvider {
  /** A new secret for the user's authenticator app (not in force until verified). */
  associate(accessToken: string): Promise<string>;
  /** False when Cognito refuses the code. */
  verify(accessToken: string, code: string): Promise<boolean>;
  /** TOTP as the user's (preferred) second factor, or no second factor. */
  setPreference(accessToken: string, enabled: boolean): Promise<void>;
}

/** What the two-factor use cases keep on the user item. */
export interface TwoFactorState {
  email: string;
  /** The stored settings group as read (undefined when never saved), for the conditional write. */
  storedSettings: unknown;
  settings: SecuritySettings;
  /** Encrypted: the secret of a setup not yet confirmed with a code. */
  pendingSecret?: string;
  /** Encrypted: the secret in force. */
  secret?: string;
  /** The time step of the last code accepted: that code and older ones are refused. */
  lastTimeStep?: number;
}

export interface TwoFactorStore {
  /** Undefined when the user has no item. */
  get(userId: string): Promise<TwoFactorState | undefined>;
  /**
   * Claims the setup for `token` until `until` (epoch ms) unless another claim still holds: two
   * setups at once would leave Cognito with one secret and the item with the other.
   */
  claimSetup(userId: string, token: string, now: number, until: number): Promise<boolean>;
  /** Keeps the new secret (encrypted) and ends the claim, if `token` still holds it. */
  savePending(userId: string, encryptedSecret: string, token: string, now: string): Promise<boolean>;
  /** Marks the code of `timeStep` used; false when it or a later one already was (a replay, or the same code twice at once). */
  spendCode(userId: string, timeStep: number): Promise<boolean>;
  /**
   * Writes the settings with twoFactorEnabled switched and the secret in force (`secret`, the
   * pending one; undefined removes it) if the settings group is still `expected` as read; false when it moved.
   */
  saveSwitch(userId: string, settings: SecuritySettings, secret: string | undefined, expected: unknown, now: string): Promise<boolean>;
}

export interface TwoFactorDeps {
  tokens: SoftwareTokenProvider;
  store: TwoFactorStore;
  cipher: () => Promise<Cipher>;
  events: SecurityEventDeps;
  now: () => Date;
}

/** How long a setup holds its claim: Cognito's AssociateSoftwareToken answers well within it. */
const SETUP_CLAIM_MS = 15_000;

const stateOf = async (deps: TwoFactorDeps, userId: string): Promise<TwoFactorState> => {
  const state = await deps.store.get(userId);
  if (!state) throw new NotFoundError('User not found');
  return state;
};

/** POST /api/security/two-factor/setup: a new secret and its otpauth URI (issuer BulkOnboard, the user's e-mail). */
export const setUpTwoFactor =
  (deps: TwoFactorDeps) =>
  async (userId: string, accessToken: string): Promise<TwoFactorSetup> => {
    const state = await stateOf(deps, userId);
    if (state.settings.twoFactorEnabled) throw new ConflictError(TWO_FACTOR_ALREADY_ON_MESSAGE);
    const now = deps.now();
    const token = randomUUID();
    if (!(await deps.store.claimSetup(userId, token, now.getTime(), now.getTime() + SETUP_CLAIM_MS))) throw new ConflictError(TWO_FACTOR_SETUP_BUSY_MESSAGE);
    const secret = await deps.tokens.associate(accessToken);
    const cipher = await deps.cipher();
    if (!(await deps.store.savePending(userId, cipher.encrypt(secret, secretContext.twoFactor(userId)), token, now.toISOString()))) {
      throw new ConflictError(TWO_FACTOR_SETUP_BUSY_MESSAGE);
    }
    return { secret, otpauthUri: otpauthUri(secret, state.email) };
  };

/**
 * Cognito has switched already: the setting follows, re-read and written again if a settings save
 * came in between (each write is conditional on the group as read).
 */
async function switchSetting(deps: TwoFactorDeps, userId: string, enabled: boolean, secret: string | undefined, now: Date): Promise<SecuritySettings> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const state = await stateOf(deps, userId);
    const settings = { ...state.settings, twoFactorEnabled: enabled };
    if (await deps.store.saveSwitch(userId, settings, secret, state.storedSettings, now.toISOString())) return settings;
  }
  throw new ConflictError('Your security settings changed meanwhile. Reload the page and try again.');
}

const refuseCode = async (deps: TwoFactorDeps, userId: string, reason: 'wrong' | 'reused', action: string, origin: RequestOrigin, at: Date): Promise<never> => {
  await recordSecurityEvent(deps.events, {
    userId,
    type: 'two_factor_failed',
    description: `${reason === 'reused' ? 'A code already used' : 'A wrong code'} was entered to turn two-factor authentication ${action}`,
    severity: 'medium',
    at,
    ...origin,
  });
  throw new ValidationError(reason === 'reused' ? TWO_FACTOR_REUSED_CODE_MESSAGE : TWO_FACTOR_WRONG_CODE_MESSAGE, [
    { path: 'code', message: reason === 'reused' ? TWO_FACTOR_REUSED_CODE_MESSAGE : TWO_FACTOR_WRONG_CODE_MESSAGE },
  ]);
};

/**
 * POST /api/security/two-factor/enable {code}: the first code from the app confirms the setup.
 * Cognito verifies it too (its own check is what puts the token in force); only then is TOTP made
 * the preferred second factor and the setting turned on.
 */
export const enableTwoFactor =
  (deps: TwoFactorDeps) =>
  async (userId: string, accessToken: string, code: string, origin: RequestOrigin): Promise<SecuritySettings> => {
    const state = await stateOf(deps, userId);
    if (state.settings.twoFactorEnabled) throw new ConflictError(TWO_FACTOR_ALREADY_ON_MESSAGE);
    if (!state.pendingSecret) throw new ConflictError(TWO_FACTOR_NO_SETUP_MESSAGE);
    const now = deps.now();
    const secret = (await deps.cipher()).decrypt(state.pendingSecret, secretContext.twoFactor(userId));
    const checked = await checkCode(secret, code, state.lastTimeStep, now);
    if (!checked.valid) return refuseCode(deps, userId, checked.reason, 'on', origin, now);
    if (!(await deps.store.spendCode(userId, checked.timeStep))) return refuseCode(deps, userId, 'reused', 'on', origin, now);
    // Our check passed on the secret this setup showed; Cognito holding another one means a newer
    // setup (another window) replaced it: say so rather than call a right code wrong.
    if (!(await deps.tokens.verify(accessToken, code))) throw new ConflictError(TWO_FACTOR_SETUP_REPLACED_MESSAGE);
    await deps.tokens.setPreference(accessToken, true);
    const settings = await switchSetting(deps, userId, true, state.pendingSecret, now);
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'two_factor_enabled',
      description: 'Two-factor authentication turned on',
      severity: 'medium',
      at: now,
      ...origin,
      alert: { title: 'Two-factor authentication turned on', detail: 'Signing in now asks for a code from your authenticator app. If this was not you, reset your password now.' },
    });
    return settings;
  };

/**
 * POST /api/security/two-factor/disable {code}: a current code, never used before, from the app
 * holding the secret in force; then Cognito stops asking for codes and the setting goes off.
 */
export const disableTwoFactor =
  (deps: TwoFactorDeps) =>
  async (userId: string, accessToken: string, code: string, origin: RequestOrigin): Promise<SecuritySettings> => {
    const state = await stateOf(deps, userId);
    if (!state.settings.twoFactorEnabled || !state.secret) throw new ConflictError(TWO_FACTOR_ALREADY_OFF_MESSAGE);
    const now = deps.now();
    const secret = (await deps.cipher()).decrypt(state.secret, secretContext.twoFactor(userId));
    const checked = await checkCode(secret, code, state.lastTimeStep, now);
    if (!checked.valid) return refuseCode(deps, userId, checked.reason, 'off', origin, now);
    // The code is spent first (conditional): the same code sent twice at once turns it off once.
    if (!(await deps.store.spendCode(userId, checked.timeStep))) return refuseCode(deps, userId, 'reused', 'off', origin, now);
    await deps.tokens.setPreference(accessToken, false);
    const settings = await switchSetting(deps, userId, false, undefined, now);
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'two_factor_disabled',
      description: 'Two-factor authentication turned off',
      severity: 'high',
      at: now,
      ...origin,
      alert: { title: 'Two-factor authentication turned off', detail: 'Signing in no longer asks for a code. If this was not you, reset your password and turn it on again.' },
    });
    return settings;
  };
