import * as z from 'zod/mini';
import { en } from 'zod/locales';

/**
 * zod's English messages for the checks a schema gives no words of its own ("Invalid input:
 * expected string, received number", "Too big: expected string to have <=1000 characters"...).
 * zod's classic API sets them when its first schema is built; zod/mini does not, and a bundle
 * with no classic schema left would answer a bare "Invalid input" instead. A schema file written
 * in zod/mini imports this module (for its effect), so an answer's details read the same whichever
 * API built the schema (2.7 KB minified). Every schema file in zod/mini imports it (since
 * session 13: the ones converted in session 12 answered a bare "Invalid input" there until then).
 */
z.config(en());
