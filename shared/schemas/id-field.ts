import * as z from 'zod/mini';
import './zod-messages';
import { isIdShaped, UNKNOWN_ID_PARAM } from './ids';

/**
 * A body field that holds an id. Missing or blank is `required` (400); an id that cannot exist is
 * `notFound` (404), the same answer as for another user's id.
 */
export const idField = (messages: { required?: string; notFound: string }) =>
  z.string(messages.required).check(
    z.trim(),
    z.minLength(1, messages.required),
    z.superRefine((value, ctx) => {
      if (value !== '' && !isIdShaped(value)) ctx.addIssue({ code: 'custom', message: messages.notFound, params: { [UNKNOWN_ID_PARAM]: true } });
    }),
  );
