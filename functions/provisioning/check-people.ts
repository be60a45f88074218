import { secretContext, type Cipher } from '../core/encryption';
import { NotFoundError, ValidationError } from '../core/errors';
import { isId } from '../core/ids';
import type { IntegrationRecord } from '../integrations/integration-record';
import { checkOutcomes, provisioningSupport, type CheckAnswer, type CheckOutcome, type CheckResult } from '../../shared/schemas/provisioning';
import type { Person } from '../../shared/schemas/bulk';
import type { PlanId } from '../../shared/plans';
import { assertApiIntegrations } from '../usage/plan-usage';
import { usernameSlots, usernamesFor } from '../bulk/usernames';
import { mapBounded } from './pacing';
import { withRequestTurn, type TurnDeps } from '../account-jobs/integration-turn';
import type { Pacing } from '../account-jobs/platform-calls';
import { isFailure, type ExternalAccount, type ProvisioningAdapter } from './provisioning-port';

export interface CheckDeps {
  plan: (userId: string) => Promise<PlanId>;
  integration: (userId: string, integrationId: string) => Promise<IntegrationRecord | undefined>;
  cipher: () => Promise<Cipher>;
  adapterFor: (integration: IntegrationRecord, credentials: Record<string, string>) => ProvisioningAdapter;
  now: () => Date;
  /** The integration's turn (the check calls the platform on it, at the integration's pace) and its limits. */
  turn: TurnDeps;
  pacingOf: (integration: IntegrationRecord) => Pacing;
}

/** Lookups in flight at most (fewer when the integration allows fewer): a check stays well inside the function's time. */
const CHECK_CONCURRENCY = 4;

/**
 * 'Check against platform' (a dry run): every person is looked up on the integration's platform by
 * the user name they would get in a new project and by their e-mail; nothing is written anywhere.
 * The lookups are made on the integration's turn (functions/account-jobs/integration-turn.ts), at
 * its pace: a job running on the integration gives the turn up at its next call, so the check and
 * the job together keep to the platform's limit.
 */
export const checkPeople =
  (deps: CheckDeps) =>
  async (userId: string, integrationId: string, input: { people: Person[]; firstRow: number }): Promise<CheckAnswer> => {
    assertApiIntegrations(await deps.plan(userId));
    const integration = isId(integrationId) ? await deps.integration(userId, integrationId) : undefined;
    if (!integration) throw new NotFoundError('Integration not found');
    const support = provisioningSupport(integration);
    if (!support.supported) throw new ValidationError(support.reason, [{ path: 'integrationId', message: support.reason }]);
    let credentials: Record<string, string>;
    try {
      credentials = JSON.parse((await deps.cipher()).decrypt(integration.authConfigEncrypted, secretContext.integration(userId, integration.id))) as Record<string, string>;
    } catch {
      throw new ValidationError("The integration's credentials cannot be read: enter them again in the integration.");
    }
    // The names these rows would get in a new project of their own (names other projects hold move on to -2, -3 ...).
    const usernames = usernamesFor(usernameSlots(input.people, deps.now().getUTCFullYear()), new Set());
    return withRequestTurn(deps.turn, { userId, integrationId: integration.id, platformName: integration.name }, deps.pacingOf(integration), async (turn) => {
      const adapter = deps.adapterFor(integration, credentials);
      try {
        const results = await mapBounded(input.people, Math.min(CHECK_CONCURRENCY, turn.concurrency), async (person, i): Promise<CheckResult> => {
          const username = usernames[i]!;
          const base = { row: input.firstRow + i, email: person.email, username };
          await turn.bucket.take();
          const byName = await adapter.find({ username, email: person.email });
          if (isFailure(byName)) return { ...base, outcome: 'error', detail: byName.message };
          const email = person.email.toLowerCase();
          if (byName) {
            return byName.emails.includes(email)
              ? { ...base, outcome: 'linked', detail: describe(byName) }
              : { ...base, outcome: 'conflict', detail: describe(byName) };
          }
          if (!adapter.findByEmail) return { ...base, outcome: 'new' };
          await turn.bucket.take();
          const byEmail = await adapter.findByEmail(person.email);
          if (isFailure(byEmail)) return { ...base, outcome: 'error', detail: byEmail.message };
          return byEmail ? { ...base, outcome: 'duplicate', detail: describe(byEmail) } : { ...base, outcome: 'new' };
        });
        const summary = Object.fromEntries(checkOutcomes.map((o) => [o, 0])) as Record<CheckOutcome, number>;
        for (const result of results) summary[result.outcome]++;
        return { results, summary };
      } finally {
        adapter.close();
      }
    });
  };

const describe = (account: ExternalAccount) => `${account.userName}${account.emails[0] ? ` (${account.emails[0]})` : ''}`;
