/**
 * Each simulated cluster holds objects to its own release's CRD schemas: what a release does not
 * have is pruned (and said so in a warning, or refused when the client asks for strict field
 * validation), defaults are filled, string formats checked — through the real Kubernetes client,
 * kubectl and Fleetskew's own writers over HTTP.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterClient, KubeError } from "../../kube/client";
import { parseKubeconfig, type ClusterCredentials } from "../../kube/credentials";
import { setBootImageSkewEnforcement } from "../../kube/writers";
import { Fleet, type ClusterSpec } from "../cluster";
import { startSimulator, type SimulatorServer } from "../http";
import { kubeconfigFor } from "../kubeconfig";
import { rawRequest, testFleetSpecs } from "../testing";

let fleet: Fleet;
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;
let kubeconfigPath: string;

/** The same cluster objects (prod-east) served at different releases. */
const AT: Record<string, Pick<ClusterSpec, "ocpVersion" | "featureSet">> = {
  "ocp-419": { ocpVersion: "4.19.10" },
  "ocp-421": { ocpVersion: "4.21.6" },
  "ocp-421-tp": { ocpVersion: "4.21.6", featureSet: "TechPreviewNoUpgrade" },
  "ocp-423": { ocpVersion: "4.23.1" },
};

beforeAll(async () => {
  const base = testFleetSpecs().find((s) => s.name === "prod-east")!;
  fleet = new Fleet();
  for (const [name, at] of Object.entries(AT)) fleet.add({ ...base, ...at, name, token: `${name}-token`, readOnlyToken: `${name}-reader` });
  sim = await startSimulator(fleet);
  const text = kubeconfigFor(fleet.list(), sim.url, sim.ca);
  const kubeconfig = parseKubeconfig(text);
  creds = (name) => kubeconfig.credentialsFor(name);
  kubeconfigPath = path.join(mkdtempSync(path.join(tmpdir(), "fleetskew-releases-")), "kubeconfig");
  writeFileSync(kubeconfigPath, text);
});
afterAll(() => sim.close());

const MACHINE_CONFIGURATION = { group: "operator.openshift.io", version: "v1", plural: "machineconfigurations", name: "cluster" };
const CLUSTER_VERSION = { group: "config.openshift.io", version: "v1", plural: "clusterversions", name: "version" };
const MANUAL = { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.16.0" } } as const;

function api(cluster: string): k8s.CustomObjectsApi {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: cluster, server: `${sim.url}/clusters/${cluster}`, caData: Buffer.from(sim.ca).toString("base64") }],
    users: [{ name: "u", token: `${cluster}-token` }],
    contexts: [{ name: cluster, cluster, user: "u" }],
    currentContext: cluster,
  });
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

const stored = async (cluster: string) =>
  (await api(cluster).getClusterCustomObject(MACHINE_CONFIGURATION)) as {
    spec: Record<string, unknown>;
    metadata: { resourceVersion: string };
  };

const kubectl = (cluster: string, ...args: string[]) =>
  promisify(execFile)("kubectl", ["--kubeconfig", kubeconfigPath, "--context", cluster, ...args]).then(
    (r) => ({ ok: true, out: r.stdout + r.stderr }),
    (e: { stdout: string; stderr: string }) => ({ ok: false, out: e.stdout + e.stderr }),
  );

describe("a field the cluster's release does not have", () => {
  it("Fleetskew's acknowledgement writer: taken on 4.23 and on 4.21 TechPreviewNoUpgrade, reported as not kept on 4.19 and 4.21", async () => {
    for (const cluster of ["ocp-423", "ocp-421-tp"]) {
      expect((await setBootImageSkewEnforcement(new ClusterClient(creds(cluster)), MANUAL)).result, cluster).toBe("patched");
      expect((await stored(cluster)).spec.bootImageSkewEnforcement, cluster).toEqual(MANUAL);
    }
    for (const cluster of ["ocp-419", "ocp-421"]) {
      const before = (await stored(cluster)).metadata.resourceVersion;
      const failure = await setBootImageSkewEnforcement(new ClusterClient(creds(cluster)), MANUAL).catch((e: unknown) => e);
      expect(failure, cluster).toBeInstanceOf(KubeError);
      expect((failure as KubeError).kind).toBe("not-served");
      expect((failure as KubeError).message).toBe(
        "the cluster accepted the write but did not keep spec.bootImageSkewEnforcement: the MachineConfiguration cluster API of its OpenShift release has no such field (it dropped it), so nothing changed (on the cluster it is not set)",
      );
      const after = await stored(cluster);
      expect(after.spec).not.toHaveProperty("bootImageSkewEnforcement");
      expect(after.metadata.resourceVersion, "a write that changed nothing keeps the resourceVersion").toBe(before);
    }
  });

  it("is pruned with the API server's warning (fieldValidation Warn, the default), silently with Ignore", async () => {
    const patch = (cluster: string, query = "") =>
      rawRequest(sim, `/clusters/${cluster}/apis/operator.openshift.io/v1/machineconfigurations/cluster${query}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${cluster}-token`, "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ spec: { bootImageSkewEnforcement: { mode: "None", manual: null }, unheardOf: 1 } }),
      });
    const warned = await patch("ocp-419");
    expect(warned.status).toBe(200);
    expect(warned.headers.warning).toBe(
      '299 - "unknown field \\"spec.bootImageSkewEnforcement\\"", 299 - "unknown field \\"spec.unheardOf\\""',
    );
    expect(JSON.parse(warned.body).spec).not.toHaveProperty("bootImageSkewEnforcement");
    const ignored = await patch("ocp-419", "?fieldValidation=Ignore");
    expect(ignored.status).toBe(200);
    expect(ignored.headers.warning).toBeUndefined();
    const kept = await patch("ocp-423");
    expect(kept.headers.warning).toBe('299 - "unknown field \\"spec.unheardOf\\""');
    expect(JSON.parse(kept.body).spec.bootImageSkewEnforcement).toEqual({ mode: "None" });
  });

  it("kubectl patch (no field validation asked for) prints the API server's warning", async () => {
    const patched = await kubectl(
      "ocp-419",
      "patch",
      "machineconfiguration",
      "cluster",
      "--type=merge",
      "-p",
      '{"spec":{"bootImageSkewEnforcement":{"mode":"None"}}}',
    );
    expect(patched.ok).toBe(true);
    expect(patched.out).toContain('Warning: unknown field "spec.bootImageSkewEnforcement"');
    // kubectl create/apply validate strictly by default, which first needs /openapi/v3: the simulator does not serve it.
    const onNewer = await kubectl(
      "ocp-423",
      "patch",
      "machineconfiguration",
      "cluster",
      "--type=merge",
      "-p",
      '{"spec":{"bootImageSkewEnforcement":{"mode":"None","manual":null}}}',
    );
    expect(onNewer.ok).toBe(true);
    expect(onNewer.out).not.toContain("Warning");
  });

  it("is refused when the client asks for strict field validation: 400 on create, 422 on patch", async () => {
    const created = await rawRequest(
      sim,
      "/clusters/ocp-419/apis/machineconfiguration.openshift.io/v1/pinnedimagesets?fieldValidation=Strict",
      {
        method: "POST",
        headers: { authorization: "Bearer ocp-419-token", "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "machineconfiguration.openshift.io/v1",
          kind: "PinnedImageSet",
          metadata: { name: "strict", annotations: {}, bogus: 1 },
          spec: { pinnedImages: [{ name: `quay.io/a/b@sha256:${"c".repeat(64)}`, pullPolicy: "Always" }] },
        }),
      },
    );
    expect(created.status).toBe(400);
    expect(JSON.parse(created.body)).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest" });
    expect(JSON.parse(created.body).message).toBe(
      'PinnedImageSet in version "v1" cannot be handled as a PinnedImageSet: strict decoding error: unknown field "metadata.bogus", unknown field "spec.pinnedImages[0].pullPolicy"',
    );
    const before = await stored("ocp-419");
    const patched = await rawRequest(
      sim,
      "/clusters/ocp-419/apis/operator.openshift.io/v1/machineconfigurations/cluster?fieldValidation=Strict",
      {
        method: "PATCH",
        headers: { authorization: "Bearer ocp-419-token", "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ spec: { bootImageSkewEnforcement: { mode: "None" } } }),
      },
    );
    expect(patched.status).toBe(422);
    const status = JSON.parse(patched.body) as { message: string; details: { causes: { field: string; message: string }[] } };
    expect(status.message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "spec.bootImageSkewEnforcement"$/,
    );
    expect(status.details.causes.map((c) => c.field)).toEqual(["patch"]);
    expect((await stored("ocp-419")).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    await expect(
      api("ocp-419").getClusterCustomObject({
        group: "machineconfiguration.openshift.io",
        version: "v1",
        plural: "pinnedimagesets",
        name: "strict",
      }),
    ).rejects.toMatchObject({ code: 404 });
  });
});

describe("defaults and formats", () => {
  it("serves MachineConfiguration with the schema's defaults filled in, as a real cluster's reads", async () => {
    const mc = await stored("ocp-419");
    expect(mc.spec).toMatchObject({ logLevel: "Normal", operatorLogLevel: "Normal" });
    await api("ocp-423").patchClusterCustomObject(
      { ...MACHINE_CONFIGURATION, body: { spec: { logLevel: null } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect((await stored("ocp-423")).spec.logLevel, "removed by the patch, defaulted again").toBe("Normal");
  });

  it("refuses a /status write with a malformed date-time in kube-openapi's words", async () => {
    const failure = await api("ocp-421")
      .patchClusterCustomObjectStatus(
        { ...CLUSTER_VERSION, body: { status: { conditions: [{ type: "Available", status: "True", lastTransitionTime: "yesterday" }] } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      )
      .catch((e: { code: number; body: string }) => e);
    expect(failure).toMatchObject({ code: 422 });
    const status = JSON.parse((failure as { body: string }).body) as { message: string };
    expect(status.message).toContain(
      'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday"',
    );
  });
});
