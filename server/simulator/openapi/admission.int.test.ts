/**
 * The simulated API server refuses what the real one refuses of the objects Fleetskew writes: the
 * CRD schemas and CEL rules of data/openapi, through the real Kubernetes client over HTTP, and
 * Fleetskew's own writers (server/kube/writers.ts) get through.
 */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterClient } from "../../kube/client";
import { parseKubeconfig, type ClusterCredentials } from "../../kube/credentials";
import { createPinnedImageSet, setBootImageSkewEnforcement, setDesiredUpdate } from "../../kube/writers";
import type { Fleet } from "../cluster";
import type { SimulatorServer } from "../http";
import { kubeconfigFor } from "../kubeconfig";
import { startTestSimulator } from "../testing";

let fleet: Fleet;
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

const CLUSTER = "prod-east-422";
const DIGEST = `sha256:${"b".repeat(64)}`;
const PINNED = { group: "machineconfiguration.openshift.io", version: "v1", plural: "pinnedimagesets" };
const MACHINE_CONFIGURATION = { group: "operator.openshift.io", version: "v1", plural: "machineconfigurations", name: "cluster" };
const CLUSTER_VERSION = { group: "config.openshift.io", version: "v1", plural: "clusterversions", name: "version" };
const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

function api(): k8s.CustomObjectsApi {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: CLUSTER, server: `${sim.url}/clusters/${CLUSTER}`, caData: Buffer.from(sim.ca).toString("base64") }],
    users: [{ name: "u", token: `${CLUSTER}-token` }],
    contexts: [{ name: CLUSTER, cluster: CLUSTER, user: "u" }],
    currentContext: CLUSTER,
  });
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

type Status = {
  code: number;
  reason: string;
  message: string;
  details: { name: string; group: string; kind: string; causes: { reason: string; message: string; field: string }[] };
};

async function refusal(promise: Promise<unknown>): Promise<Status> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; body: string | object };
    return typeof e.body === "string" ? JSON.parse(e.body) : (e.body as Status);
  }
  throw new Error("expected the API server to refuse the write");
}

const pinnedSet = (name: string, images: string[]) => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "PinnedImageSet",
  metadata: { name, labels: { "machineconfiguration.openshift.io/role": "worker" } },
  spec: { pinnedImages: images.map((n) => ({ name: n })) },
});

describe("PinnedImageSet", () => {
  it("accepts the set Fleetskew writes for a bundle", async () => {
    const images = [`quay.io/openshift-release-dev/ocp-release@${DIGEST}`, `mirror.example.com:5000/ocp4/openshift4@${DIGEST}`];
    expect(await createPinnedImageSet(new ClusterClient(creds(CLUSTER)), { name: "bundle-ok", poolLabels: {}, images })).toBe("created");
  });

  it("refuses an image referenced by tag with 422 Invalid, word for word, and stores nothing", async () => {
    const status = await refusal(
      api().createClusterCustomObject({
        ...PINNED,
        body: pinnedSet("bundle-tag", [`quay.io/example/app@${DIGEST}`, "quay.io/example/app:v1"]),
      }),
    );
    expect(status).toMatchObject({
      code: 422,
      reason: "Invalid",
      details: { name: "bundle-tag", group: "machineconfiguration.openshift.io", kind: "PinnedImageSet" },
    });
    expect(status.message).toBe(
      `PinnedImageSet.machineconfiguration.openshift.io "bundle-tag" is invalid: [spec.pinnedImages[1].name: Invalid value: "quay.io/example/app:v1": the OCI Image reference must end with a valid '@sha256:<digest>' suffix, where '<digest>' is 64 characters long, ` +
        `spec.pinnedImages[1].name: Invalid value: "quay.io/example/app:v1": the OCI Image name should follow the host[:port][/namespace]/name format, resembling a valid URL without the scheme]`,
    );
    expect(status.details.causes[0]).toEqual({
      reason: "FieldValueInvalid",
      field: "spec.pinnedImages[1].name",
      message: `Invalid value: "quay.io/example/app:v1": the OCI Image reference must end with a valid '@sha256:<digest>' suffix, where '<digest>' is 64 characters long`,
    });
    await expect(api().getClusterCustomObject({ ...PINNED, name: "bundle-tag" })).rejects.toMatchObject({ code: 404 });
  });

  it("refuses more than 500 images, and an update that breaks a stored set", async () => {
    const many = Array.from({ length: 501 }, (_, i) => `quay.io/example/app-${i}@${DIGEST}`);
    const tooMany = await refusal(api().createClusterCustomObject({ ...PINNED, body: pinnedSet("bundle-big", many) }));
    expect(tooMany.code).toBe(422);
    expect(tooMany.message).toContain('"bundle-big" is invalid: [spec.pinnedImages: Too many: 501: must have at most 500 items, ');
    await api().createClusterCustomObject({ ...PINNED, body: pinnedSet("bundle-edit", [`quay.io/example/app@${DIGEST}`]) });
    const broken = await refusal(
      api().patchClusterCustomObject({ ...PINNED, name: "bundle-edit", body: { spec: { pinnedImages: [{ name: "app" }] } } }, mergePatch),
    );
    expect(broken.details.causes.map((c) => c.field)).toEqual(["spec.pinnedImages[0].name", "spec.pinnedImages[0].name"]);
    const kept = (await api().getClusterCustomObject({ ...PINNED, name: "bundle-edit" })) as { spec: unknown };
    expect(kept.spec).toEqual({ pinnedImages: [{ name: `quay.io/example/app@${DIGEST}` }] });
  });
});

describe("MachineConfiguration", () => {
  it("accepts the skew enforcement values Fleetskew writes", async () => {
    const client = new ClusterClient(creds(CLUSTER));
    expect(
      (await setBootImageSkewEnforcement(client, { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.18.0" } })).result,
    ).toBe("patched");
    expect((await setBootImageSkewEnforcement(client, { mode: "None" })).result).toBe("patched");
  });

  it("refuses Manual without its version, and None with one", async () => {
    const manual = await refusal(
      api().patchClusterCustomObject(
        { ...MACHINE_CONFIGURATION, body: { spec: { bootImageSkewEnforcement: { mode: "Manual", manual: null } } } },
        mergePatch,
      ),
    );
    expect(manual).toMatchObject({ code: 422, reason: "Invalid" });
    expect(manual.message).toBe(
      'MachineConfiguration.operator.openshift.io "cluster" is invalid: spec.bootImageSkewEnforcement: Invalid value: manual is required when mode is Manual, and forbidden otherwise',
    );
    const none = await refusal(
      api().patchClusterCustomObject(
        {
          ...MACHINE_CONFIGURATION,
          body: { spec: { bootImageSkewEnforcement: { mode: "None", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } } } },
        },
        mergePatch,
      ),
    );
    expect(none.details.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.bootImageSkewEnforcement",
        message: "Invalid value: manual is required when mode is Manual, and forbidden otherwise",
      },
    ]);
    const stored = (await api().getClusterCustomObject(MACHINE_CONFIGURATION)) as { spec: { bootImageSkewEnforcement: unknown } };
    expect(stored.spec.bootImageSkewEnforcement).toEqual({ mode: "None" });
  });

  it("refuses Partial selection for ControlPlaneMachineSets", async () => {
    const status = await refusal(
      api().patchClusterCustomObject(
        {
          ...MACHINE_CONFIGURATION,
          body: {
            spec: {
              managedBootImages: {
                machineManagers: [
                  {
                    resource: "controlplanemachinesets",
                    apiGroup: "machine.openshift.io",
                    selection: { mode: "Partial", partial: { machineResourceSelector: {} } },
                  },
                ],
              },
            },
          },
        },
        mergePatch,
      ),
    );
    expect(status.message).toContain(
      "spec.managedBootImages.machineManagers[0]: Invalid value: Only All or None selection mode is permitted for ControlPlaneMachineSets",
    );
  });
});

describe("ClusterVersion", () => {
  const patchDesired = (desiredUpdate: Record<string, unknown>) =>
    api().patchClusterCustomObject({ ...CLUSTER_VERSION, body: { spec: { desiredUpdate } } }, mergePatch);

  it("refuses an architecture next to an image, and an architecture without a version", async () => {
    const both = await refusal(patchDesired({ architecture: "Multi", version: "4.22.4" }));
    expect(both.message).toBe(
      'ClusterVersion.config.openshift.io "version" is invalid: spec.desiredUpdate: Invalid value: cannot set both Architecture and Image',
    );
    const noVersion = await refusal(patchDesired({ architecture: "Multi", version: "", image: null }));
    expect(noVersion.message).toBe(
      'ClusterVersion.config.openshift.io "version" is invalid: spec.desiredUpdate: Invalid value: Version must be set if Architecture is set',
    );
  });

  it("lets Fleetskew start an update by image after an update to multi-arch left an architecture behind", async () => {
    await patchDesired({ architecture: "Multi", version: "4.22.3", image: null });
    const image = `quay.io/openshift-release-dev/ocp-release@${DIGEST}`;
    await setDesiredUpdate(new ClusterClient(creds(CLUSTER)), { version: "4.22.4", image });
    const cv = (await api().getClusterCustomObject(CLUSTER_VERSION)) as { spec: { desiredUpdate: unknown } };
    expect(cv.spec.desiredUpdate).toEqual({ version: "4.22.4", image, force: false });
  });
});
