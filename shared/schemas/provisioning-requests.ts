import * as z from 'zod/mini';
import './zod-messages';
import { personSchema } from './bulk';
import { CHECK_PEOPLE_MAX, provisioningModes } from './provisioning';

/**
 * The request bodies of provisioning (its route groups' schemas). Apart from ./provisioning.ts,
 * which is free of zod: the functions that start, wait for or report on runs reach that file, not
 * these (and so not zod's classic API through the person schema).
 */

/** POST /api/projects/{id}/provision */
export const startProvisioningSchema = z.object({
  integrationId: z.string('Choose an integration').check(z.trim(), z.minLength(1, 'Choose an integration'), z.maxLength(100, 'Integration not found')),
  mode: z._default(z.optional(z.enum(provisioningModes, 'Mode must be provision, retry or undo')), 'provision'),
});
export type StartProvisioningInput = z.input<typeof startProvisioningSchema>;

/** POST /api/integrations/{id}/check: who already exists on the platform. Writes nothing. */
export const checkPeopleSchema = z.object({
  people: z.array(personSchema).check(z.minLength(1, 'At least one person is required'), z.maxLength(CHECK_PEOPLE_MAX, `At most ${CHECK_PEOPLE_MAX} people per check`)),
  /** The row number of the first person (the web app's parts keep the file's numbering). */
  firstRow: z._default(z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000))), 1),
});
export type CheckPeopleInput = z.input<typeof checkPeopleSchema>;
