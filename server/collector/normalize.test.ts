import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clusterSkew } from "../domain/clusterSkew";
import { CapturedCluster } from "../kube/captured";
import { KubeError } from "../kube/client";
import { parseDumpFile, type DumpObject } from "../kube/dumps";
import { readClusterObjects, type ClusterObjects } from "../kube/readers";
import { normalizeSnapshot } from "./normalize";
import { effectiveEnforcement } from "../domain/skewEnforcement";

const FIXTURES = path.join(__dirname, "../simulator/fixtures/prod-east");
/** The reference cluster's dumps (installed 4.12.7, now 4.19.10), moved to bare metal. */
const bareMetalDumps = (): DumpObject[] => [
  ...readdirSync(FIXTURES).flatMap((f) => parseDumpFile(f, readFileSync(path.join(FIXTURES, f), "utf8")).objects),
  {
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster" },
    status: { platform: "BareMetal", platformStatus: { type: "BareMetal" }, controlPlaneTopology: "HighlyAvailable" },
  },
];
const provisioning = (spec: Record<string, unknown>): DumpObject => ({
  apiVersion: "metal3.io/v1alpha1",
  kind: "Provisioning",
  metadata: { name: "provisioning-configuration" },
  spec: { provisioningNetwork: "Managed", ...spec },
});

describe("normalizeSnapshot: the bare-metal legacy provisioning path (docs/openshift.md §16.1 rule 2)", () => {
  const cases: {
    rule: string;
    objects: DumpObject[];
    /** What the reader answers instead of reading the capture: a cluster that serves the kind but lacks the object, or refuses. */
    answer?: ClusterObjects["provisioning"];
    legacyPath: boolean | null;
    reason: RegExp;
    mode: string;
    problem?: RegExp;
  }[] = [
    {
      rule: "provisioningOSDownloadURL set: legacy, so the MCO's normal rules apply (Manual with the install version)",
      objects: [provisioning({ provisioningOSDownloadURL: "http://172.22.0.3/images/rhcos-412.86.qcow2.gz?sha256=abc" })],
      legacyPath: true,
      reason: /^Provisioning provisioning-configuration has spec\.provisioningOSDownloadURL set$/,
      mode: "Manual",
    },
    {
      rule: "an empty provisioningOSDownloadURL: not legacy → None",
      objects: [provisioning({ provisioningOSDownloadURL: "" })],
      legacyPath: false,
      reason: /has no spec\.provisioningOSDownloadURL/,
      mode: "None",
    },
    {
      rule: "no provisioningOSDownloadURL at all: not legacy → None",
      objects: [provisioning({ provisioningNetwork: "Disabled" })],
      legacyPath: false,
      reason: /has no spec\.provisioningOSDownloadURL/,
      mode: "None",
    },
    {
      rule: "the kind is served but there is no provisioning-configuration: not legacy → None",
      objects: [],
      answer: {
        status: "not-available",
        reason: 'provisionings.metal3.io "provisioning-configuration" not found',
        missing: "object",
      },
      legacyPath: false,
      reason: /^the cluster has no Provisioning provisioning-configuration$/,
      mode: "None",
    },
    {
      rule: "the kind is not served (here: not in the capture): unknown, legacy assumed",
      objects: [],
      legacyPath: null,
      reason: /does not serve metal3\.io\/v1alpha1 Provisioning \(Provisioning is not in the capture\)/,
      mode: "Manual",
    },
    {
      rule: "the read is refused: unknown, legacy assumed, and a read problem",
      objects: [],
      answer: { status: "error", error: new KubeError("forbidden", 'cannot get resource "provisionings" in API group "metal3.io"', 403) },
      legacyPath: null,
      reason: /could not be read: cannot get resource "provisionings"/,
      mode: "Manual",
      problem: /cannot get resource "provisionings"/,
    },
    {
      rule: "an object of an unexpected shape: unknown, legacy assumed",
      objects: [provisioning({ provisioningOSDownloadURL: 42 })],
      legacyPath: null,
      reason: /could not be read: Provisioning provisioning-configuration has an unexpected shape/,
      mode: "Manual",
      problem: /unexpected shape/,
    },
  ];

  it.each(cases)("$rule", async ({ objects, answer, legacyPath, reason, mode, problem }) => {
    const read = await readClusterObjects(new CapturedCluster([...bareMetalDumps(), ...objects]));
    const s = normalizeSnapshot(answer ? { ...read, provisioning: answer } : read);
    expect(s.platform).toBe("BareMetal");
    expect(s.bareMetalProvisioning).toEqual({ legacyPath, reason: expect.stringMatching(reason) });
    expect(effectiveEnforcement(s, "4.22.3")).toMatchObject({ source: "predicted", mode });
    expect(clusterSkew(s).status).toBe(mode === "None" ? "ok" : "at-risk");
    const problems = s.problems.filter((p) => p.part === "Provisioning");
    if (problem) expect(problems).toEqual([{ part: "Provisioning", kind: "error", message: expect.stringMatching(problem) }]);
    else expect(problems).toEqual([]);
  });
});
