/**
 * What {{passwordChangeNotice}} reads when the user's Require password change setting is on (the
 * send's setting, read when it starts); empty when it is off. Free of zod: the mail worker reads it
 * and no template schema.
 */
export const PASSWORD_CHANGE_NOTICE = 'You will be asked to choose a new password the first time you sign in.';
