import * as z from 'zod';
import { personSchema } from './bulk';
import { CHECK_PEOPLE_MAX, provisioningModes } from './provisioning';

/**
 * The request bodies of provisioning (its route groups' schemas). Apart from ./provisioning.ts,
 * which is free of zod: the functions that start, wait for or report on runs reach that file, not
 * these (and so not zod's classic API through the person schema).
 */

/** POST /api/projects/{id}/provision */
export const startProvisioningSchema = z.object({
  integrationId: z.string('Choose an integration').trim().min(1, 'Choose an integration').max(100, 'Integration not found'),
  mode: z.enum(provisioningModes, 'Mode must be provision, retry or undo').optional().default('provision'),
});
export type StartProvisioningInput = z.input<typeof startProvisioningSchema>;

/** POST /api/integrations/{id}/check: who already exists on the platform. Writes nothing. */
export const checkPeopleSchema = z.object({
  people: z.array(personSchema).min(1, 'At least one person is required').max(CHECK_PEOPLE_MAX, `At most ${CHECK_PEOPLE_MAX} people per check`),
  /** The row number of the first person (the web app's parts keep the file's numbering). */
  firstRow: z.number().int().min(1).max(1_000_000).optional().default(1),
});
export type CheckPeopleInput = z.input<typeof checkPeopleSchema>;
