/**
 * A bundle rollout's plan checks each cluster against the bundle's prechecks that need no write and
 * no live read (server/domain/rollouts/bundleChecks.ts), from the snapshot the collector stored; the
 * step runs every precheck again, live, before it writes.
 */
import { bundleOrThrow } from "../bundles/bundles";
import { STORED_PRECHECK_PARTS, StoredPrecheckPartsSchema, storedPrecheckFailure } from "../domain/rollouts/bundleChecks";
import { storedSnapshotParts } from "../store/storedSnapshots";

/** The clusters whose stored state fails a precheck of the bundle, each with the first failure in words. */
export async function storedPrecheckExclusions(digestText: string, clusters: string[]): Promise<Map<string, string>> {
  const bundle = await bundleOrThrow(digestText);
  const failing = new Map<string, string>();
  for await (const [name, snapshot] of storedSnapshotParts(clusters, STORED_PRECHECK_PARTS)) {
    // A stored state that does not decode tells nothing here: the step runs every precheck live before it writes.
    const parts = StoredPrecheckPartsSchema.safeParse(snapshot);
    if (!parts.success) continue;
    const failure = storedPrecheckFailure(parts.data, bundle.manifest, bundle.digest);
    if (failure) failing.set(name, failure);
  }
  return failing;
}
