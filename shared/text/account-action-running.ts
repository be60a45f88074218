/**
 * The 409 of a provisioning run, send or reset of a project while an account action holds it.
 * Free of zod: the functions that refuse with it reach no other schema for it.
 */
export const ACCOUNT_ACTION_RUNNING = 'Accounts of this project are being deactivated, reactivated or deleted. Wait for that to finish, then try again.';
