import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { startTestSimulator } from "../simulator/testing";
import { ClusterClient } from "./client";
import { parseKubeconfig, type ClusterCredentials } from "./credentials";
import { readClusterObjects } from "./readers";

let fleet: Fleet;
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

/** One sweep's read of `client`, and the requests the simulated cluster answered for it. */
async function sweep(client: ClusterClient, cluster: string) {
  const before = fleet.get(cluster)!.requestCount;
  client.startRead();
  try {
    const objects = await readClusterObjects(client);
    return { objects, requests: fleet.get(cluster)!.requestCount - before };
  } finally {
    client.endRead();
  }
}

/** Moves the simulated cluster's ClusterVersion to `version`, as an update the CVO has begun (Partial) or finished. */
function setRelease(cluster: string, version: string, state: "Partial" | "Completed") {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = structuredClone(c.store.get(info, undefined, "version")) as {
    status: { desired: { version: string }; history: { version: string; state: string }[] };
  };
  const history = cv.status.history[0]!.version === version ? cv.status.history.slice(1) : cv.status.history;
  cv.status.desired = { ...cv.status.desired, version };
  cv.status.history = [{ ...cv.status.history[0]!, version, state }, ...history];
  c.store.replace(info, undefined, "version", cv as never, "status");
}

describe("kinds a cluster does not serve", () => {
  it("are asked once per release: later sweeps skip them and read the same objects", async () => {
    // prod-east runs 4.19: no InternalReleaseImage (4.22) and no OSImageStream (v1 from 4.23, v1alpha1 from 4.22).
    const client = new ClusterClient(creds("prod-east"), { timeoutMs: 2_000, retries: 0, retryDelayMs: 0 });
    try {
      const first = await sweep(client, "prod-east");
      expect(first.objects.internalReleaseImage).toMatchObject({ status: "not-available", missing: "kind" });
      expect(first.objects.osImageStream).toMatchObject({ status: "not-available", missing: "kind" });
      // From the second sweep on, three requests fewer (the first also read the rendered MachineConfigs, once).
      const steady = await sweep(client, "prod-east");
      expect(steady.objects).toEqual(first.objects);
      const asked = steady.requests + 3;

      // An update under way: nothing is taken from memory, and the sweep that used it reads again.
      setRelease("prod-east", "4.19.11", "Partial");
      const updating = await sweep(client, "prod-east");
      expect(updating.requests).toBe(steady.requests + asked);
      expect(updating.objects.internalReleaseImage).toMatchObject({ status: "not-available", missing: "kind" });
      expect((await sweep(client, "prod-east")).requests).toBe(asked);

      // Completed: learned again under the new release, then skipped.
      setRelease("prod-east", "4.19.11", "Completed");
      expect((await sweep(client, "prod-east")).requests).toBe(asked);
      const after = await sweep(client, "prod-east");
      expect(after.requests).toBe(steady.requests);
      expect(after.objects.osImageStream).toMatchObject({ status: "not-available", missing: "kind" });
    } finally {
      client.close();
    }
  });
});
