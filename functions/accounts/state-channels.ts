/** The channels of the per-account state blocks (account-states.ts): a module of its own, so a project's item can name them without the readers' code. */
export type StateChannel = 'PROV' | 'MAIL' | 'ACT';
export const stateChannels: readonly StateChannel[] = ['PROV', 'MAIL', 'ACT'];
