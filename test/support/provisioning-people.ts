import type { ProvisioningPerson } from '../../functions/provisioning/provisioning-port';

/** Person n as the provisioning adapters get them (the contract tests' people), with `over` on top. */
export const person = (n: number, over: Partial<ProvisioningPerson> = {}): ProvisioningPerson => ({
  accountId: `acc-${n}`,
  username: `janedoe2026-${n}`,
  password: `Generated-Pw-${n}!x`,
  firstName: 'Jane',
  lastName: `Doe${n}`,
  email: `jane.doe${n}@example.com`,
  ...over,
});
