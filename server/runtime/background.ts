import { pruneAuthState } from "../auth/housekeeping";
import { testRegisteredCluster } from "../clusters/registration";
import { listClusterSummaries } from "../store/clusters";

const HOUR = 3_600_000;

/** Tests clusters never contacted yet (just registered, or the demo fleet), a few at a time. */
async function contactNewClusters(concurrency = 4): Promise<void> {
  const queue = (await listClusterSummaries()).filter((c) => c.lastContactStatus === "unknown").map((c) => c.name);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) await testRegisteredCluster(name).catch(() => undefined);
    }),
  );
}

let started = false;

export function startBackgroundWork(): void {
  if (started) return;
  started = true;
  const report = (what: string) => (error: unknown) => console.error(`fleetskew: ${what} failed:`, (error as Error).message);
  void pruneAuthState().catch(report("housekeeping"));
  setInterval(() => void pruneAuthState().catch(report("housekeeping")), HOUR).unref();
  void contactNewClusters().catch(report("first contact with new clusters"));
}
