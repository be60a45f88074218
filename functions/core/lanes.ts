/**
 * Runs `work` on each item, at most `lanes` at once, in the items' order of start; rejects with
 * the first failure (the lanes still running finish their current item).
 */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}
