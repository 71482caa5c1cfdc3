import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { healthyCluster, prodEast, prodEast422Acknowledged } from "../domain/testing/snapshots";
import { CapturedCluster } from "../kube/captured";
import { parseDumpFile } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { decodeSnapshot } from "./snapshotCodec";

const FIXTURES = path.join(__dirname, "../simulator/fixtures/prod-east");
/** The reference cluster's dumps read and normalized as the collector does. */
async function normalizedProdEast() {
  const objects = readdirSync(FIXTURES).flatMap((f) => parseDumpFile(f, readFileSync(path.join(FIXTURES, f), "utf8")).objects);
  return normalizeSnapshot(await readClusterObjects(new CapturedCluster(objects)));
}

describe("decodeSnapshot", () => {
  afterEach(() => vi.restoreAllMocks());

  it("gives back what the collector stores, key for key: the schema and the collector's snapshot agree", async () => {
    for (const snapshot of [await normalizedProdEast(), healthyCluster(), prodEast(), prodEast422Acknowledged()]) {
      expect(snapshot.machineSets.length).toBeGreaterThan(0);
      // Through JSON, as Postgres keeps it: a key the schema does not know would be dropped, and fail here.
      const stored: unknown = JSON.parse(JSON.stringify(snapshot));
      expect(decodeSnapshot(stored, "c")).toEqual(stored);
    }
  });

  it("reads a snapshot stored before the optional parts were kept", async () => {
    const { alerts: _a, featureGate: _f, osImageStream: _o, internalReleaseImage: _i, bareMetalProvisioning: _b, ...older } = prodEast();
    expect(decodeSnapshot(JSON.parse(JSON.stringify(older)), "c")?.machineSets).toEqual(prodEast().machineSets);
  });

  it("reads a snapshot that does not match as not yet read, and says so once per cluster", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { machineSets: _m, ...withoutMachineSets } = prodEast();
    const wrongType = { ...prodEast(), pools: "none" };
    expect(decodeSnapshot(withoutMachineSets, "mismatch-a")).toBeNull();
    expect(decodeSnapshot(withoutMachineSets, "mismatch-a")).toBeNull();
    expect(decodeSnapshot(wrongType, "mismatch-b")).toBeNull();
    expect(decodeSnapshot(null, "mismatch-c")).toBeNull();
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn.mock.calls[0]![0]).toMatch(/mismatch-a .*machineSets/);
    expect(warn.mock.calls[1]![0]).toMatch(/mismatch-b .*pools/);
  });
});
