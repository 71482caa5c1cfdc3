/**
 * Works through `items`, at most `limit` at once. When one fails, no further item starts, the items
 * already started are waited for, and then the first failure is thrown: the call never returns while
 * work it started is still going on. The rollout runner relies on it: a tick that ended (even by a
 * lost database connection) must have no cluster write still in flight, or the next tick would find
 * that step not yet recorded as written and write it again.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (!failure && next < items.length) {
        const item = items[next++]!;
        try {
          await work(item);
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}
