/**
 * What an id in a path or a body may look like. The app's own ids are 36-character UUIDs
 * (functions/core/ids.ts); this shape is more generous (any URL-safe id up to 200 characters) so a
 * future id form still fits, yet it keeps out what could never name an item: a 5,000-character
 * string (DynamoDB refuses keys over 1,024 bytes with an error, not a miss), a key separator
 * ('#'), a slash, spaces and control characters. Anything else cannot exist: it answers 404
 * without a table read. Free of zod (every HTTP function reads it, functions/core/http.ts): the
 * body field is in ./id-field.ts.
 */
export const ID_MAX_LENGTH = 200;
const ID_SHAPE = new RegExp(`^[A-Za-z0-9._~-]{1,${ID_MAX_LENGTH}}$`);

export const isIdShaped = (value: string): boolean => ID_SHAPE.test(value);

/**
 * Marks a zod issue as "this id names nothing": the HTTP layer (functions/core/http.ts) answers
 * 404 with its message when a body has no other problem, as for an unknown id in a path.
 */
export const UNKNOWN_ID_PARAM = 'unknownId';
