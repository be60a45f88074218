/**
 * The order in which the local SCIM directory hands a /Bulk request's operations to scimmy.
 *
 * scimmy's BulkRequest resolves a `bulkId:` reference to an EARLIER operation by waiting for it,
 * but treats a reference to a LATER one as circular: it creates the resource without the
 * reference, then POSTs it a second time (a duplicate, or 409 against itself), and an operation
 * naming its own bulkId waits for ever. So operations are put in an order where every referenced
 * POST comes first (stable otherwise), and true cycles are refused.
 */
export type BulkPlan = { order: number[] } | { problem: string };

const referencePattern = /"bulkId:(.+?)"/g;

export function planBulk(operations: unknown[]): BulkPlan {
  const notObject = operations.findIndex((o) => o === null || typeof o !== 'object' || Array.isArray(o));
  if (notObject >= 0) return { problem: `Operation #${notObject + 1} is not an object` };
  const ops = operations as { method?: unknown; bulkId?: unknown; data?: unknown }[];

  const postIndex = new Map<string, number>();
  ops.forEach((op, index) => {
    if (String(op.method).toUpperCase() === 'POST' && typeof op.bulkId === 'string' && !postIndex.has(op.bulkId)) postIndex.set(op.bulkId, index);
  });
  const dependsOn = ops.map((op) => {
    const referenced = [...JSON.stringify(op.data ?? {}).matchAll(referencePattern)].map((m) => postIndex.get(m[1]!));
    return new Set(referenced.filter((i): i is number => i !== undefined));
  });

  // Stable topological order: always the first operation whose references are all done.
  const done = new Set<number>();
  const order: number[] = [];
  while (order.length < ops.length) {
    const next = ops.findIndex((_, index) => !done.has(index) && [...dependsOn[index]!].every((d) => done.has(d)));
    if (next < 0) {
      const stuck = ops.flatMap((op, index) => (done.has(index) ? [] : [String(op.bulkId ?? `#${index + 1}`)]));
      return { problem: `Circular bulkId references (between ${stuck.join(', ')}) are not supported by the local SCIM directory` };
    }
    done.add(next);
    order.push(next);
  }
  return { order };
}
