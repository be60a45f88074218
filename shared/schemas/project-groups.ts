import * as z from 'zod/mini';
import './zod-messages';

/** Groups a project may name at most: each is one call per account on the platform. */
export const PROJECT_GROUPS_MAX = 10;
/** A group name's length at most (Salesforce's group Name is 40; Okta, Graph and LDAP take more). */
export const GROUP_NAME_MAX = 120;

/**
 * A project's platform groups (issue 28 item 5): names as the platform knows them, each once
 * (without regard to case), no control characters. Absent from a request: unchanged.
 */
export const projectGroupsSchema = z
  .array(
    z.string('Group names must be text').check(
      z.trim(),
      z.minLength(1, 'A group name cannot be empty'),
      z.maxLength(GROUP_NAME_MAX, `A group name must be at most ${GROUP_NAME_MAX} characters`),
      // eslint-disable-next-line no-control-regex
      z.regex(/^[^\u0000-\u001f\u007f]*$/, 'A group name cannot contain control characters'),
    ),
    'Groups must be a list of group names',
  )
  .check(
    z.maxLength(PROJECT_GROUPS_MAX, `A project can join at most ${PROJECT_GROUPS_MAX} groups`),
    z.refine((names) => new Set(names.map((n) => n.toLowerCase())).size === names.length, 'Each group can be named only once'),
  );

/** 'Create groups that do not exist': a missing group is created on the platform (else the accounts fail with the reason). */
export const createGroupsSchema = z.boolean("'Create groups that do not exist' must be true or false");
