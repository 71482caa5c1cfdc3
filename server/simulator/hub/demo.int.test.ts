import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { startDemoHub } from "./demo";
import { clientConfig } from "./testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-demo-hub-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the demo hub", () => {
  it("keeps its CA, tokens and URLs across restarts, so a registered hub keeps working", async () => {
    const first = await startDemoHub({ dataDir: dir, clusters: 8 });
    const before = first.sim.registration();
    await first.stop();
    expect(statSync(path.join(dir, "demo-hub", "state.json")).mode & 0o777).toBe(0o600);

    const second = await startDemoHub({ dataDir: dir, clusters: 8 });
    try {
      const after = second.sim.registration();
      expect(after).toEqual(before);
      const list = (await clientConfig(after.hubApiUrl, after.ca, after.readerToken)
        .makeApiClient(k8s.CustomObjectsApi)
        .listClusterCustomObject({ group: "cluster.open-cluster-management.io", version: "v1", plural: "managedclusters" })) as {
        items: unknown[];
      };
      expect(list.items).toHaveLength(8);
    } finally {
      await second.stop();
    }
  });
});
