/**
 * TEST_PORT_SHIFT moves the bench's local stacks as it moves the tests' (a second checkout, or a
 * test run, beside this one): two benches on the same ports would fail each other's start.
 */
const shift = Number(process.env.TEST_PORT_SHIFT ?? 0);
export const benchPortShift = Number.isInteger(shift) ? shift : 0;
