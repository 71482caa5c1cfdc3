import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { cvoInputsOf, withCvoUpgradeable } from "../cvo";
import type { KubeObject } from "../objectStore";
import { machineConfigsForPools } from "./machineConfigs";

// The reference cluster (server/simulator/fixtures): AWS us-east-1, installed 4.12.7,
// now 4.19.10, three worker MachineSets on the 4.12 AMI. Files are copied verbatim.
const FIXTURES = path.join(__dirname, "..", "fixtures");

const cache = new Map<string, KubeObject[]>();
/** The fixture objects of one scenario directory ("prod-east", "prod-east-422"); shared, so clone before changing. */
export function readFixture(scenario: string): KubeObject[] {
  let objects = cache.get(scenario);
  if (!objects) cache.set(scenario, (objects = readFixtureDir(path.join(FIXTURES, scenario))));
  return objects;
}

function readFixtureDir(dir: string): KubeObject[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => {
      const doc = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
      return Array.isArray(doc.items) ? doc.items : [doc];
    });
}

const namespace = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name },
  spec: { finalizers: ["kubernetes"] },
  status: { phase: "Active" },
});

/** Objects every OpenShift cluster has that the fixture files leave out. */
function clusterBasics(opts: { infraId: string; region: string; apiHost: string; currentMinor: number; acked: string[] }): KubeObject[] {
  const gate = `ack-4.${opts.currentMinor}-kube-1.${opts.currentMinor + 14}-api-removals-in-4.${opts.currentMinor + 1}`;
  return [
    ...["openshift-config", "openshift-config-managed", "openshift-machine-api", "openshift-machine-config-operator"].map(namespace),
    {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      metadata: { name: "cluster" },
      spec: { cloudConfig: { name: "" }, platformSpec: { type: "AWS", aws: {} } },
      status: {
        infrastructureName: opts.infraId,
        platform: "AWS",
        platformStatus: { type: "AWS", aws: { region: opts.region } },
        apiServerURL: `https://${opts.apiHost}:6443`,
        apiServerInternalURI: `https://${opts.apiHost.replace(/^api\./, "api-int.")}:6443`,
        etcdDiscoveryDomain: "",
        controlPlaneTopology: "HighlyAvailable",
        infrastructureTopology: "HighlyAvailable",
        cpuPartitioning: "None",
      },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "admin-gates", namespace: "openshift-config-managed" },
      data: {
        [gate]: `Kubernetes 1.${opts.currentMinor + 14} and therefore OpenShift 4.${opts.currentMinor + 1} remove several APIs which require admin consideration. Please see the knowledge article https://access.redhat.com/articles/7031404 for details and instructions.`,
      },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "admin-acks", namespace: "openshift-config" },
      data: Object.fromEntries(opts.acked.map((a) => [a, "true"])),
    },
  ];
}

// The release image the reference cluster's pools run (made up, in the right format).
/**
 * A few running pods: most use IfNotPresent; a catalog source and one application pull with
 * Always, as disconnected sites meet them before an upgrade.
 */
function workloadPods(): KubeObject[] {
  const pod = (namespace: string, name: string, node: string, image: string, imagePullPolicy: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { app: name.replace(/-[a-z0-9]+-[a-z0-9]+$/, "") } },
    spec: { nodeName: node, containers: [{ name: "main", image, imagePullPolicy }] },
    status: { phase: "Running" },
  });
  return [
    ...["openshift-marketplace", "payments"].map(namespace),
    pod(
      "openshift-marketplace",
      "redhat-operators-7x9kq",
      "ip-10-0-77-201.ec2.internal",
      "registry.redhat.io/redhat/redhat-operator-index:v4.19",
      "Always",
    ),
    pod(
      "payments",
      "payments-api-6f7d9c-x2kq8",
      "ip-10-0-33-150.ec2.internal",
      "registry.example.com/payments/api@sha256:172dd4a0366000604e2c4de41457aa1eb3093bb59ead22e0f1d472a2aaade094",
      "IfNotPresent",
    ),
    pod("payments", "payments-worker-5b8c7d-m4n2p", "ip-10-0-33-150.ec2.internal", "registry.example.com/payments/worker:latest", "Always"),
  ];
}

const OS_IMAGE = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:9d2f3c1a0b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817065f4e";

/** ClusterVersion's Upgradeable conditions as the CVO computes them from the objects beside it. */
function withClusterVersionUpgradeable(objects: KubeObject[]): KubeObject[] {
  const inputs = cvoInputsOf(objects);
  return objects.map((o) => {
    if (o.kind !== "ClusterVersion") return o;
    const status = o.status as { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
    const since = status.conditions?.find((c) => c.type === "Available")?.lastTransitionTime ?? new Date(0).toISOString();
    return { ...o, status: { ...status, conditions: withCvoUpgradeable(status.conditions ?? [], inputs, since) } };
  });
}

export function prodEastObjects(): KubeObject[] {
  return withClusterVersionUpgradeable(prodEastBase());
}

function prodEastBase(): KubeObject[] {
  const fixture = structuredClone(readFixture("prod-east"));
  return [
    ...clusterBasics({
      infraId: "prod-east-7xk2p",
      region: "us-east-1",
      apiHost: "api.prod-east.example.com",
      currentMinor: 19,
      acked: [],
    }),
    ...fixture,
    ...workloadPods(),
    ...machineConfigsForPools(
      fixture.filter((o) => o.kind === "MachineConfigPool"),
      OS_IMAGE,
    ),
  ];
}

/**
 * prod-east after upgrading to 4.22.3 with no admin action: the projected MachineConfiguration and
 * ClusterOperator, and a ClusterVersion whose history has moved on through 4.20 and 4.21.
 */
export function prodEast422Objects(): KubeObject[] {
  const projected = new Map(structuredClone(readFixture("prod-east-422")).map((o) => [`${o.kind}/${o.metadata.name}`, o]));
  const moved = prodEastBase().map((obj) => {
    const replacement = projected.get(`${obj.kind}/${obj.metadata.name}`);
    if (replacement) return replacement;
    if (obj.kind === "ClusterVersion") return moveClusterVersion(obj, ["4.20.8", "4.21.5", "4.22.3"]);
    if (obj.kind === "ConfigMap" && obj.metadata.name === "coreos-bootimages") return moveBootImagesConfigMap(obj, "4.22.3");
    if (obj.kind === "ConfigMap" && obj.metadata.name === "admin-gates") {
      return {
        ...obj,
        data: {
          "ack-4.22-kube-1.36-api-removals-in-4.23":
            "Kubernetes 1.36 and therefore OpenShift 4.23 remove several APIs which require admin consideration.",
        },
      };
    }
    return obj;
  });
  return withClusterVersionUpgradeable(moved);
}

type HistoryEntry = {
  state: string;
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
};

export function moveClusterVersion(obj: KubeObject, versions: string[]): KubeObject {
  const cv = structuredClone(obj) as KubeObject & {
    spec: Record<string, unknown>;
    status: { history: HistoryEntry[]; desired: Record<string, unknown>; conditions: { type: string; message?: string }[] };
  };
  let started = new Date(cv.status.history[0]!.completionTime ?? cv.status.history[0]!.startedTime);
  const digest = (v: string) =>
    `quay.io/openshift-release-dev/ocp-release@sha256:${Buffer.from(v.padEnd(32, "0")).toString("hex").slice(0, 64)}`;
  for (const version of versions) {
    started = new Date(started.getTime() + 75 * 86_400_000);
    const completed = new Date(started.getTime() + 2 * 3_600_000);
    cv.status.history[0]!.completionTime ??= started.toISOString().replace(/\.\d{3}Z$/, "Z");
    cv.status.history.unshift({
      state: "Completed",
      startedTime: started.toISOString().replace(/\.\d{3}Z$/, "Z"),
      completionTime: completed.toISOString().replace(/\.\d{3}Z$/, "Z"),
      version,
      image: digest(version),
      verified: true,
    });
  }
  const current = cv.status.history[0]!;
  const minor = versions.at(-1)!.split(".").slice(0, 2).join(".");
  cv.spec.channel = `stable-${minor}`;
  if (cv.spec.desiredUpdate)
    cv.spec.desiredUpdate = { ...(cv.spec.desiredUpdate as object), version: current.version, image: current.image };
  cv.status.desired = {
    ...cv.status.desired,
    version: current.version,
    image: current.image,
    channels: [`stable-${minor}`, `fast-${minor}`],
  };
  cv.status.conditions = cv.status.conditions.map((c) =>
    c.type === "Available"
      ? { ...c, message: `Done applying ${current.version}` }
      : c.type === "Progressing"
        ? { ...c, message: `Cluster version is ${current.version}` }
        : c.type === "ReleaseAccepted"
          ? { ...c, message: `Payload loaded version="${current.version}" image="${current.image}" architecture="amd64"` }
          : c,
  );
  // The update service offers the next two z-streams of the release the cluster runs now.
  const [major, minorPart, patch] = current.version.split(".").map(Number) as [number, number, number];
  const status = cv.status as unknown as { availableUpdates?: unknown[] | null };
  if (status.availableUpdates?.length)
    status.availableUpdates = [1, 2].map((step) => {
      const version = `${major}.${minorPart}.${patch + step}`;
      return {
        version,
        image: digest(version),
        url: `https://access.redhat.com/errata/RHBA-2026:${10000 + patch + step}`,
        channels: [`fast-${minor}`, `stable-${minor}`],
      };
    });
  return cv;
}

function moveBootImagesConfigMap(obj: KubeObject, version: string): KubeObject {
  const cm = structuredClone(obj) as KubeObject & { data: Record<string, string> };
  cm.data.releaseVersion = version;
  cm.data.MCOReleaseImageVersion = version;
  return cm;
}

/**
 * prod-east at `version` with the boot images still at 4.12.7 and the admin gates acknowledged, so
 * that the MCO's skew check is what blocks minor updates; with `secondBlocker`, the cloud-credential
 * operator also refuses them, as it does in manual mode until its upgradeable-to annotation names the
 * next minor. At 4.23.2 the CVO writes Upgradeable from risks (../cvo.ts), at 4.22.3 from checks.
 */
export function prodEastBlockedAt(version: "4.22.3" | "4.23.2", secondBlocker: boolean): KubeObject[] {
  const objects = prodEast422Objects().map((obj) => {
    if (obj.kind === "ClusterVersion" && version !== "4.22.3") return moveClusterVersion(obj, [version]);
    if (obj.kind === "ConfigMap" && obj.metadata.name === "coreos-bootimages" && version !== "4.22.3")
      return moveBootImagesConfigMap(obj, version);
    if (obj.kind === "ConfigMap" && obj.metadata.name === "admin-acks")
      return { ...obj, data: { "ack-4.22-kube-1.36-api-removals-in-4.23": "true" } };
    if (obj.kind === "ClusterOperator" && obj.metadata.name === "machine-config" && version !== "4.22.3") {
      // The MCO names the docs of the release it runs (docs/openshift.md §17.3).
      const status = obj.status as { conditions?: { type: string; message?: string }[] };
      return {
        ...obj,
        status: {
          ...status,
          conditions: (status.conditions ?? []).map((c) =>
            c.type === "Upgradeable" && c.message ? { ...c, message: c.message.replace("/4.22/html/", "/4.23/html/") } : c,
          ),
        },
      };
    }
    return obj;
  });
  if (secondBlocker)
    objects.push({
      apiVersion: "config.openshift.io/v1",
      kind: "ClusterOperator",
      metadata: { name: "cloud-credential" },
      spec: {},
      status: {
        conditions: [
          { type: "Available", status: "True", reason: "AsExpected", lastTransitionTime: "2026-08-01T00:00:00Z" },
          { type: "Degraded", status: "False", reason: "AsExpected", lastTransitionTime: "2026-08-01T00:00:00Z" },
          {
            type: "Upgradeable",
            status: "False",
            reason: "MissingUpgradeableAnnotation",
            message: CLOUD_CREDENTIAL_NOT_UPGRADEABLE,
            lastTransitionTime: "2026-08-01T00:00:00Z",
          },
        ],
        versions: [{ name: "operator", version }],
      },
    });
  // The CVO's verdict on what is there now, without what the 4.22 CVO had written before.
  return withClusterVersionUpgradeable(
    objects.map((o) =>
      o.kind === "ClusterVersion"
        ? {
            ...o,
            status: {
              ...(o.status as object),
              conditions: ((o.status as { conditions?: { type: string }[] }).conditions ?? []).filter(
                (c) => !c.type.startsWith("Upgradeable"),
              ),
            },
          }
        : o,
    ),
  );
}

/** The cloud-credential operator's words in manual mode before an update (cloud-credential-operator pkg/operator/status). */
export const CLOUD_CREDENTIAL_NOT_UPGRADEABLE =
  "Upgradeable annotation cloudcredential.openshift.io/upgradeable-to on cloudcredential.operator.openshift.io/cluster object needs updating before upgrade. See Manually Creating IAM documentation for instructions on preparing a cluster for upgrade.";
