import { defaultPorts } from '../bin/local/settings';

/**
 * TEST_PORT_SHIFT moves the bench's local stacks as it moves the tests' (a second checkout, or a
 * test run, beside this one): two benches on the same ports would fail each other's start.
 */
const shift = Number(process.env.TEST_PORT_SHIFT ?? 0);
export const benchPortShift = Number.isInteger(shift) ? shift : 0;

/**
 * A bench part's port offset: its base moved by the shift, the shift wrapped where the stack's
 * highest port would pass 65535 (the parts at the top, mail from 50000 and sync from 52500, leave
 * room for a shift of about 6,000 or 3,000 only: a larger one failed the part's start).
 */
export function benchOffset(base: number): number {
  const room = 65_535 - Math.max(...Object.values(defaultPorts)) - base + 1;
  return base + (room > 0 ? benchPortShift % room : 0);
}
