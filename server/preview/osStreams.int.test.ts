import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Collector } from "../collector/collector";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { osStreams423Objects } from "../simulator/scenarios/osStreams";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import { audienceOf, previewOnCluster, readProposedMachineConfig, type ClusterPreview } from "./clusterPreview";
import { storedPreviewInputs } from "./storedInputs";

/**
 * The preview's RHEL 10 runc check on the streams the MCO resolves (docs/openshift.md §25.1), through
 * the real client against the simulator over HTTPS, live and from the inputs a sweep kept: streams-423
 * has worker on rhel-10, a custom pool infra that names no stream (so inherits rhel-10 from worker,
 * `GetEffectiveOSImageStreamName`) and runs runc by a ContainerRuntimeConfig, and master on the
 * cluster's default rhel-9 (OSImageStream status.defaultStream).
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;

beforeAll(async () => {
  fleet = new Fleet();
  fleet.add({ name: "streams-423", ocpVersion: "4.23.1", token: "s-token", readOnlyToken: "s-reader", objects: osStreams423Objects });
  fleet.add({
    name: "no-streams-grant",
    ocpVersion: "4.23.1",
    token: "n-token",
    readOnlyToken: "n-reader",
    forbidden: [{ verb: "get", resource: "osimagestreams", group: "machineconfiguration.openshift.io" }],
    objects: osStreams423Objects,
  });
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
});
afterAll(() => sim.close());

const ROLE = "machineconfiguration.openshift.io/role";
const RUNC = '[crio.runtime]\ndefault_runtime = "runc"\n';
const proposal = (name: string, role: string, files: Record<string, string>) =>
  readProposedMachineConfig(
    JSON.stringify({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name, labels: { [ROLE]: role } },
      spec: {
        config: {
          ignition: { version: "3.5.0" },
          storage: {
            files: Object.entries(files).map(([path, text]) => ({
              path,
              mode: 420,
              overwrite: true,
              contents: { source: `data:,${encodeURIComponent(text)}` },
            })),
          },
        },
      },
    }),
  );
const preview = async (name: string, role: string, files: Record<string, string>, cluster = "streams-423") =>
  previewOnCluster(
    cluster,
    simulatorCredentials(sim, fleet.get(cluster)!),
    await proposal(name, role, files),
    audienceOf({ role: "viewer" }),
    { timeoutMs: 5_000, retries: 0, retryDelayMs: 0 },
  );
/** Each previewed pool's notes about the render controller. */
const refusals = (r: ClusterPreview) =>
  Object.fromEntries(r.pools.map((p) => [p.pool, p.notes.filter((n) => n.includes("render controller")).join("\n")]));
const refusedWords = (pool: string) =>
  `MachineConfigPool ${pool} targets a RHEL 10 OS image where runc is not available. To unblock, migrate to crun`;

describe("the preview on streams-423, read live", () => {
  it("a harmless worker change: infra, inheriting rhel-10 from worker with runc, is already refused; worker is not", async () => {
    const r = await preview("99-worker-motd", "worker", { "/etc/motd": "hello\n" });
    expect(r.source).toBe("live");
    const notes = refusals(r);
    expect(Object.keys(notes).sort()).toEqual(["infra", "worker"]);
    expect(notes.infra).toContain(
      "pool infra is on OS image stream rhel-10 (inherited from the worker pool, as a custom pool without a stream of its own does (GetEffectiveOSImageStreamName)), and already before this change the MCO's render controller refuses to render it",
    );
    expect(notes.infra).toContain(refusedWords("infra"));
    expect(notes.worker).toBe("");
  });

  it("runc for the worker pool: worker (its own rhel-10) is refused because of this change", async () => {
    const notes = refusals(await preview("50-worker-runc", "worker", { "/etc/crio/crio.conf.d/50-runc": RUNC }));
    expect(notes.worker).toContain(
      "pool worker is on OS image stream rhel-10 (its own spec.osImageStream.name), and with this change the MCO's render controller refuses to render it",
    );
    expect(notes.worker).toContain(refusedWords("worker"));
  });

  it("runc for master: on the cluster's default rhel-9, not refused", async () => {
    const r = await preview("50-master-runc", "master", { "/etc/crio/crio.conf.d/50-runc": RUNC });
    expect(r.pools.map((p) => p.pool)).toEqual(["master"]);
    expect(refusals(r).master).toBe("");
  });
});

describe("a token that may not read OSImageStream", () => {
  it("master's default stream cannot be told: runc for it is said to be not known; worker's own rhel-10 still decides", async () => {
    const master = refusals(await preview("50-master-runc", "master", { "/etc/crio/crio.conf.d/50-runc": RUNC }, "no-streams-grant"));
    expect(master.master).toMatch(
      /^with this change CRI-O's default runtime on pool master is runc, and whether the MCO's render controller refuses to render it \(a RHEL 10 pool cannot use runc\) cannot be told: its stream hangs on the cluster's default stream, and OSImageStream\/cluster could not be read: /,
    );
    const worker = refusals(await preview("50-worker-runc", "worker", { "/etc/crio/crio.conf.d/50-runc": RUNC }, "no-streams-grant"));
    expect(worker.worker).toContain("with this change the MCO's render controller refuses to render it");
    expect(worker.infra).toContain("inherited from the worker pool");
  });
});

describe("the preview on streams-423 from the inputs its last sweep kept", () => {
  it("keeps OSImageStream, bounded, and gives the same refusals when the cluster cannot be read", async () => {
    await new Collector(testCollectorOptions("streams")).runOnce();
    const kept = await storedPreviewInputs("streams-423");
    const stream = kept!.objects.find((o) => (o as { kind?: string }).kind === "OSImageStream");
    expect(stream).toEqual({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "OSImageStream",
      metadata: { name: "cluster" },
      spec: { defaultStream: "rhel-9" },
      status: { defaultStream: "rhel-9", availableStreams: [{ name: "rhel-10" }, { name: "rhel-9" }] },
    });
    const live = refusals(await preview("50-worker-runc", "worker", { "/etc/crio/crio.conf.d/50-runc": RUNC }));
    const liveMaster = refusals(await preview("50-master-runc", "master", { "/etc/crio/crio.conf.d/50-runc": RUNC }));
    fleet.setFaults("streams-423", { errorEvery: 1, errorStatus: 503 });
    try {
      const r = await preview("50-worker-runc", "worker", { "/etc/crio/crio.conf.d/50-runc": RUNC });
      expect(r.source).toBe("stored");
      expect(refusals(r)).toEqual(live);
      expect(live.infra).toContain("inherited from the worker pool");
      // master hangs on the default stream, which the kept OSImageStream still tells.
      expect(refusals(await preview("50-master-runc", "master", { "/etc/crio/crio.conf.d/50-runc": RUNC }))).toEqual(liveMaster);
    } finally {
      fleet.setFaults("streams-423", undefined);
    }
  });
});
