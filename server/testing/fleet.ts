import { sealCredentials } from "../clusters/registration";
import type { CollectorOptions } from "../collector/collector";
import { MCO_SKEW_LIMITS } from "../domain/skew";
import type { ClusterCredentials } from "../kube/credentials";
import type { SimCluster } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { insertCluster, insertClusters } from "../store/clusters";

/** Credentials for one simulated cluster, as a kubeconfig for it would carry. */
export const simulatorCredentials = (sim: SimulatorServer, cluster: { name: string; spec: { token: string } }): ClusterCredentials => ({
  server: `${sim.url}/clusters/${cluster.name}`,
  token: cluster.spec.token,
  certificateAuthority: sim.ca,
  insecureSkipTlsVerify: false,
});

/** Registers simulated clusters straight through the store (registration itself is tested elsewhere). */
export async function registerSimulatedClusters(sim: SimulatorServer, clusters: SimCluster[]): Promise<void> {
  for (const cluster of clusters) {
    const credentials = simulatorCredentials(sim, cluster);
    await insertCluster(
      {
        name: cluster.name,
        displayName: cluster.name,
        labels: { site: cluster.name.startsWith("prod") ? "east" : "lab" },
        platform: null,
        apiUrl: credentials.server,
        encryptedCredentials: await sealCredentials(cluster.name, credentials),
      },
      { actor: "test" },
    );
  }
}

/** A collector for tests: short client timeouts, no retries, every cluster due at once. */
export const testCollectorOptions = (worker: string, over: Partial<CollectorOptions> = {}): CollectorOptions => ({
  worker,
  intervalMs: 300_000,
  concurrency: 4,
  clusterTimeoutMs: 10_000,
  client: { timeoutMs: 2_000, retries: 0, retryDelayMs: 10 },
  limits: () => MCO_SKEW_LIMITS,
  now: () => new Date(),
  pollMs: 50,
  ...over,
});

/** Registers clusters by name only (never contacted), for plans saved straight to the store: a plan holds each cluster's id. */
export async function registerClusterNames(names: string[]): Promise<void> {
  await insertClusters(
    names.map((name) => ({
      name,
      displayName: name,
      labels: {},
      platform: null,
      apiUrl: `https://api.${name}.invalid:6443`,
      encryptedCredentials: Buffer.alloc(0),
    })),
    { actor: "test", role: null, ip: null },
  );
}
