import { checkBootImageSkew, skewLimitsFor } from "../../domain/skew";
import { cvoInputsOf, withCvoUpgradeable } from "../cvo";
import type { ClusterSpec, Faults } from "../cluster";
import type { KubeObject } from "../store";
import { amiFor, azureVersionFor, BOOT_IMAGE_BUILDS, gcpImageFor } from "./bootImages";
import { machineConfigsForPools } from "./machineConfigs";
import { prodEast422Objects, prodEastObjects, readFixture } from "./prodEast";
import { bootImagesDefaultOn, bootImagesSupported } from "../../domain/platforms";
import { hexOf, pick, rng, uidOf, weighted } from "./random";

export type Platform = "AWS" | "GCP" | "Azure" | "VSphere" | "BareMetal" | "None";
export type Topology = "SNO" | "compact" | "standard";
export type PinnedState = "none" | "progressing" | "done" | "failed";
type Enforcement =
  | null
  | { mode: "None" }
  | { mode: "Manual"; manual: { mode: "OCPVersion"; ocpVersion: string } | { mode: "RHCOSVersion"; rhcosVersion: string } };

/** Everything that distinguishes one generated cluster; the objects follow from it. */
export type ClusterParams = {
  name: string;
  infraId: string;
  platform: Platform;
  region: string;
  topology: Topology;
  installVersion: string;
  history: string[]; // newest first
  managedBootImages: "unset" | "All" | "Partial" | "None";
  enforcementSpec: Enforcement;
  /** One MachineSet has an owner reference, so the MCO skips it. */
  ownedMachineSet: boolean;
  imageMode: boolean;
  pinned: PinnedState;
  /**
   * The metal3.io Provisioning `provisioning-configuration` of a multi-node bare-metal cluster (null:
   * none): "os-download-url" sets spec.provisioningOSDownloadURL, the legacy provisioning path on
   * which the MCO enforces boot-image skew; "no-os-download-url" leaves it empty (reference §2.2 rule 2).
   */
  provisioning: "os-download-url" | "no-os-download-url" | null;
  faults?: Faults;
};

const REGIONS: Record<Platform, string[]> = {
  AWS: ["us-east-1", "us-west-2", "eu-central-1", "ap-southeast-2"],
  GCP: ["us-central1", "europe-west4"],
  Azure: ["eastus", "westeurope"],
  VSphere: ["dc1"],
  BareMetal: ["site"],
  None: ["site"],
};

const minorOfVersion = (v: string) => Number(v.split(".")[1]);
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

const defaultOn = (platform: Platform, minor: number) => bootImagesDefaultOn(platform, minor);
const supported = (platform: Platform, minor: number) => bootImagesSupported(platform, minor);

export function paramsFor(index: number, seed: number): ClusterParams {
  const r = rng(seed * 1_000_003 + index);
  const platform = weighted<Platform>(r, [
    ["AWS", 35],
    ["GCP", 15],
    ["Azure", 15],
    ["VSphere", 15],
    ["BareMetal", 12],
    ["None", 8],
  ]);
  const topology = weighted<Topology>(r, [
    ["standard", 70],
    ["compact", 15],
    ["SNO", 15],
  ]);
  const currentMinor = 14 + Math.floor(r() * 9); // 4.14–4.22
  const installMinor = Math.min(currentMinor, 10 + Math.floor(r() * 11)); // 4.10–4.20
  const history: string[] = [];
  for (let m = installMinor; m <= currentMinor; m++)
    history.unshift(`4.${m}.${m === installMinor ? 1 + Math.floor(r() * 12) : 3 + Math.floor(r() * 28)}`);
  const name = `${pick(r, ["edge", "prod", "stage", "lab", "plant", "store", "dc"])}-${pick(r, ["north", "south", "east", "west", "central"])}-${String(index).padStart(4, "0")}`;
  const canManage = supported(platform, currentMinor);
  const managedBootImages = canManage
    ? weighted<ClusterParams["managedBootImages"]>(r, [
        ["unset", 55],
        ["All", 15],
        ["Partial", 15],
        ["None", 15],
      ])
    : "unset";
  const enforcementSpec: Enforcement =
    currentMinor >= 22
      ? weighted<Enforcement>(r, [
          [null, 70],
          [{ mode: "None" }, 10],
          [{ mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: `4.${Math.max(13, installMinor)}.0` } }, 10],
          [{ mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: BOOT_IMAGE_BUILDS[Math.max(installMinor, 16)]! } }, 10],
        ])
      : null;
  const faultKind = weighted(r, [
    ["none", 94],
    ["latency", 2],
    ["errors", 1],
    ["timeout", 1],
    ["malformed", 1],
    ["flapping", 1],
  ] as const);
  const faults: Faults | undefined =
    faultKind === "latency"
      ? { latencyMs: 1500 }
      : faultKind === "errors"
        ? { errorEvery: 2 }
        : faultKind === "timeout"
          ? { timeout: true }
          : faultKind === "malformed"
            ? { malformedEvery: 3 }
            : faultKind === "flapping"
              ? { flapPeriodMs: 60_000 }
              : undefined;
  return {
    name,
    infraId: `${name}-${hexOf(name, 5).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`,
    platform,
    region: pick(r, REGIONS[platform]),
    topology,
    installVersion: history.at(-1)!,
    history,
    managedBootImages,
    enforcementSpec,
    ownedMachineSet: r() < 0.08,
    imageMode: topology === "standard" && currentMinor >= 19 && r() < 0.15,
    pinned:
      currentMinor >= 19
        ? weighted<PinnedState>(r, [
            ["none", 55],
            ["done", 20],
            ["progressing", 12],
            ["failed", 13],
          ])
        : "none",
    // Decided by the name, not by the generator, so that every other parameter of the fleet stays as it was.
    provisioning:
      platform === "BareMetal" && topology !== "SNO"
        ? hexOf(`${name}/provisioning`, 1) < "8"
          ? "os-download-url"
          : "no-os-download-url"
        : null,
    faults,
  };
}

type MachineSetPlan = { name: string; zone: string; role: string; labels: Record<string, string>; build: string; owned: boolean };

function providerSpec(p: ClusterParams, ms: MachineSetPlan, template: Record<string, unknown>): Record<string, unknown> {
  switch (p.platform) {
    case "AWS":
      return { ...template, ami: { id: amiFor(ms.build, p.region) }, placement: { availabilityZone: ms.zone, region: p.region } };
    case "GCP":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "GCPMachineProviderSpec",
        region: p.region,
        zone: ms.zone,
        machineType: "n2-standard-4",
        disks: [
          {
            autoDelete: true,
            boot: true,
            image: `projects/rhcos-cloud/global/images/${gcpImageFor(ms.build)}`,
            sizeGb: 128,
            type: "pd-ssd",
          },
        ],
        userDataSecret: { name: "worker-user-data" },
      };
    case "Azure": {
      const legacy = Number(ms.build.split(".")[0]) < 413 && ms.build.includes(".");
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AzureMachineProviderSpec",
        location: p.region,
        zone: ms.zone,
        vmSize: "Standard_D4s_v3",
        image: legacy
          ? {
              resourceID: `/resourceGroups/${p.infraId}-rg/providers/Microsoft.Compute/galleries/gallery_${p.infraId.replace(/-/g, "_")}/images/${p.infraId}-gen2/versions/latest`,
              publisher: "",
              offer: "",
              sku: "",
              version: "",
              type: "ID",
            }
          : {
              publisher: "azureopenshift",
              offer: "aro4",
              sku: "aro_4xx_gen2",
              version: azureVersionFor(ms.build),
              resourceID: "",
              type: "MarketplaceNoPlan",
            },
        userDataSecret: { name: "worker-user-data" },
      };
    }
    case "VSphere":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "VSphereMachineProviderSpec",
        template: `${p.infraId}-rhcos-${ms.zone}`,
        numCPUs: 4,
        memoryMiB: 16384,
        diskGiB: 120,
        workspace: { datacenter: p.region, datastore: "datastore1", folder: `/${p.region}/vm/${p.infraId}`, server: "vcenter.example.com" },
        userDataSecret: { name: "worker-user-data" },
      };
    default:
      return {
        apiVersion: "baremetal.cluster.k8s.io/v1alpha1",
        kind: "BareMetalMachineProviderSpec",
        image: {
          url: `http://provisioning.example.com/images/rhcos-${ms.build}-openstack.x86_64.qcow2`,
          checksum: `sha256:${hexOf(ms.build, 64)}`,
        },
        userData: { name: "worker-user-data-managed" },
      };
  }
}

/** The objects of one generated cluster, consistent with its parameters. */
export function generatedObjects(p: ClusterParams): KubeObject[] {
  const current = p.history[0]!;
  const minor = minorOfVersion(current);
  const installMinor = minorOfVersion(p.installVersion);
  const installBuild = BOOT_IMAGE_BUILDS[installMinor]!;
  const currentBuild = BOOT_IMAGE_BUILDS[minor]!;
  const base = readFixture("prod-east");
  const byKind = (kind: string) => base.filter((o) => o.kind === kind);
  const start = new Date(Date.UTC(2021, 0, 10) + (installMinor - 10) * 120 * 86_400_000);

  // --- Boot image management, as the MCO would have left it (reference §1.4, §2.2).
  const statusMode = p.managedBootImages !== "unset" ? p.managedBootImages : defaultOn(p.platform, minor) ? "All" : "None";
  const hasMachineSets = p.topology === "standard" && p.platform !== "None";
  const zones =
    p.platform === "VSphere"
      ? ["fd-a", "fd-b"]
      : ["a", "b", "c"].map((z) => (p.platform === "AWS" ? `${p.region}${z}` : p.platform === "GCP" ? `${p.region}-${z}` : z));
  const machineSets: MachineSetPlan[] = hasMachineSets
    ? zones.map((zone, i) => ({
        name: `${p.infraId}-worker-${zone}`,
        zone,
        role: "worker",
        labels: { "machine.openshift.io/cluster-api-cluster": p.infraId, ...(i === 0 ? { "bootimages.example.com/managed": "true" } : {}) },
        build: installBuild,
        owned: p.ownedMachineSet && i === zones.length - 1,
      }))
    : [];
  let skipped = 0;
  for (const ms of machineSets) {
    const enrolled = statusMode === "All" || (statusMode === "Partial" && ms.labels["bootimages.example.com/managed"] === "true");
    if (!enrolled || !supported(p.platform, minor)) continue;
    if (ms.owned) skipped++;
    else ms.build = currentBuild;
  }

  // --- Skew enforcement status and the machine-config operator's Upgradeable (reference §2.2–2.4).
  const limits = minor >= 22 ? skewLimitsFor(current) : null;
  let skewStatus: Record<string, unknown> | undefined;
  if (minor >= 22) {
    if (p.enforcementSpec) skewStatus = structuredClone(p.enforcementSpec);
    // Bare metal off the legacy provisioning path (no Provisioning OS download URL), and single-node: not enforced.
    else if ((p.platform === "BareMetal" && p.provisioning !== "os-download-url") || p.topology === "SNO") skewStatus = { mode: "None" };
    else if (supported(p.platform, minor) && statusMode === "All")
      skewStatus = { mode: "Automatic", automatic: { ocpVersion: skipped > 0 ? p.installVersion : current } };
    else skewStatus = { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: p.installVersion } };
  }
  const recorded = (skewStatus?.automatic ?? skewStatus?.manual) as { ocpVersion?: string; rhcosVersion?: string } | undefined;
  const verdict = limits && recorded && skewStatus?.mode !== "None" ? checkBootImageSkew(recorded, limits, current) : null;
  const blocked = verdict?.outcome === "below-limit" ? verdict.message : null;

  const objects: KubeObject[] = [];
  const push = (o: KubeObject) => objects.push(o);
  for (const ns of ["openshift-config", "openshift-config-managed", "openshift-machine-api", "openshift-machine-config-operator"]) {
    push({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns, uid: uidOf(`${p.name}/ns/${ns}`) }, status: { phase: "Active" } });
  }
  const topology = p.topology === "SNO" ? "SingleReplica" : "HighlyAvailable";
  push({
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster", uid: uidOf(`${p.name}/infra`) },
    spec: { platformSpec: { type: p.platform } },
    status: {
      infrastructureName: p.infraId,
      platform: p.platform,
      platformStatus: {
        type: p.platform,
        ...(p.platform === "AWS"
          ? { aws: { region: p.region } }
          : p.platform === "GCP"
            ? { gcp: { region: p.region, projectID: `${p.name}-project` } }
            : {}),
      },
      apiServerURL: `https://api.${p.name}.example.com:6443`,
      controlPlaneTopology: topology,
      infrastructureTopology: topology,
    },
  });

  // Bare metal: the provisioning singleton the installer creates; the legacy path serves the install's RHCOS image by URL.
  if (p.provisioning)
    push({
      apiVersion: "metal3.io/v1alpha1",
      kind: "Provisioning",
      metadata: {
        name: "provisioning-configuration",
        uid: uidOf(`${p.name}/provisioning`),
        generation: 1,
        creationTimestamp: iso(start),
        finalizers: ["provisioning.metal3.io"],
      },
      spec:
        p.provisioning === "os-download-url"
          ? {
              provisioningNetwork: "Managed",
              provisioningInterface: "enp1s0",
              provisioningIP: "172.22.0.3",
              provisioningNetworkCIDR: "172.22.0.0/24",
              provisioningDHCPRange: "172.22.0.10,172.22.0.254",
              provisioningOSDownloadURL: `http://provisioning.example.com/images/rhcos-${installBuild}-openstack.x86_64.qcow2.gz?sha256=${hexOf(installBuild, 64)}`,
            }
          : { provisioningNetwork: "Disabled", provisioningIP: "192.168.111.3", provisioningNetworkCIDR: "192.168.111.0/24" },
      status: { observedGeneration: 1 },
    });

  // ClusterVersion: history newest first, each entry ending when the next began.
  const cv = structuredClone(byKind("ClusterVersion")[0]!) as KubeObject & {
    spec: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  const digest = (v: string) => `quay.io/openshift-release-dev/ocp-release@sha256:${hexOf(v, 64)}`;
  const entries = [...p.history].reverse().map((version, i) => {
    const started = new Date(start.getTime() + i * 100 * 86_400_000);
    return {
      state: "Completed",
      startedTime: iso(started),
      completionTime: iso(new Date(started.getTime() + 3 * 3_600_000)),
      version,
      image: digest(version),
      verified: i > 0,
      acceptedRisks: "",
    };
  });
  cv.metadata = { ...cv.metadata, uid: uidOf(`${p.name}/cv`) };
  cv.spec = {
    ...cv.spec,
    clusterID: uidOf(`${p.name}/id`),
    channel: `stable-4.${minor}`,
    desiredUpdate: { version: current, image: digest(current), force: false },
  };
  cv.status.history = entries.reverse();
  cv.status.desired = { version: current, image: digest(current), channels: [`stable-4.${minor}`, `fast-4.${minor}`] };
  const conditions = (cv.status.conditions as { type: string; message?: string }[]).map((c) =>
    c.type === "Available"
      ? { ...c, message: `Done applying ${current}` }
      : c.type === "Progressing"
        ? { ...c, message: `Cluster version is ${current}` }
        : c.type === "ReleaseAccepted"
          ? { ...c, message: `Payload loaded version="${current}" image="${digest(current)}" architecture="amd64"` }
          : c,
  );
  // Its Upgradeable conditions are the CVO's verdict on the objects below (folded in at the end).
  cv.status.conditions = conditions;
  push(cv);

  const co = structuredClone(byKind("ClusterOperator")[0]!) as KubeObject & {
    status: { conditions: Record<string, unknown>[]; versions?: unknown };
  };
  co.metadata = { ...co.metadata, uid: uidOf(`${p.name}/co`) };
  co.status.conditions = co.status.conditions.map((c) =>
    c.type === "Upgradeable"
      ? blocked
        ? { ...c, status: "False", reason: "ClusterBootImageSkewError", message: blocked }
        : { type: "Upgradeable", status: "True", reason: "AsExpected", lastTransitionTime: c.lastTransitionTime }
      : c.type === "Progressing"
        ? { ...c, message: `Cluster version is ${current}` }
        : c.type === "Available"
          ? { ...c, message: `Cluster has deployed [{operator ${current}}]` }
          : c,
  );
  co.status.versions = [{ name: "operator", version: current }];
  push(co);

  // MachineConfiguration.
  const mcfg = structuredClone(byKind("MachineConfiguration")[0]!) as KubeObject & {
    spec: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  mcfg.metadata = { ...mcfg.metadata, uid: uidOf(`${p.name}/mcfg`), annotations: {} };
  const manager = (mode: string) => ({
    resource: "machinesets",
    apiGroup: "machine.openshift.io",
    selection:
      mode === "Partial"
        ? { mode, partial: { machineResourceSelector: { matchLabels: { "bootimages.example.com/managed": "true" } } } }
        : { mode },
  });
  if (p.managedBootImages === "unset") delete mcfg.spec.managedBootImages;
  else mcfg.spec.managedBootImages = { machineManagers: [manager(p.managedBootImages)] };
  if (supported(p.platform, minor)) mcfg.status.managedBootImagesStatus = { machineManagers: [manager(statusMode)] };
  else delete mcfg.status.managedBootImagesStatus;
  if (p.managedBootImages === "unset" && statusMode === "All") {
    mcfg.metadata.annotations = {
      "machineconfiguration.openshift.io/boot-image-updates-opted-in-at": iso(
        new Date(start.getTime() + (minor - installMinor) * 100 * 86_400_000),
      ),
    };
  }
  if (p.enforcementSpec) mcfg.spec.bootImageSkewEnforcement = structuredClone(p.enforcementSpec);
  if (skewStatus) mcfg.status.bootImageSkewEnforcementStatus = skewStatus;
  const enrolledCount = machineSets.filter(
    (m) => statusMode === "All" || (statusMode === "Partial" && m.labels["bootimages.example.com/managed"] === "true"),
  ).length;
  mcfg.status.conditions = (mcfg.status.conditions as { type: string; message?: string }[]).map((c) =>
    c.type === "BootImageUpdateProgressing"
      ? {
          ...c,
          message: `Reconciled ${enrolledCount - skipped} of ${enrolledCount} MAPI MachineSets${skipped ? ` (${skipped} skipped)` : ""}`,
        }
      : c,
  );
  push(mcfg);

  // coreos-bootimages: the stream for the current release.
  const cm = structuredClone(byKind("ConfigMap").find((c) => c.metadata.name === "coreos-bootimages")!) as KubeObject & {
    data: Record<string, string>;
  };
  const stream = JSON.parse(cm.data.stream!);
  const arch = stream.architectures.x86_64;
  arch.artifacts = Object.fromEntries(
    Object.entries(arch.artifacts as Record<string, { release: string }>).map(([k, v]) => [k, { ...v, release: currentBuild }]),
  );
  arch.images.aws = {
    regions: Object.fromEntries(REGIONS.AWS.map((region) => [region, { release: currentBuild, image: amiFor(currentBuild, region) }])),
  };
  arch.images.gcp = { release: currentBuild, project: "rhcos-cloud", name: gcpImageFor(currentBuild) };
  stream.stream = `rhcos-4.${minor}`;
  cm.metadata = { ...cm.metadata, uid: uidOf(`${p.name}/cm`) };
  cm.data = { ...cm.data, releaseVersion: current, MCOReleaseImageVersion: current, stream: JSON.stringify(stream) };
  push(cm);

  const gate = `ack-4.${minor}-kube-1.${minor + 14}-api-removals-in-4.${minor + 1}`;
  push({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "admin-gates", namespace: "openshift-config-managed" },
    data: {
      [gate]: `Kubernetes 1.${minor + 14} and therefore OpenShift 4.${minor + 1} remove several APIs which require admin consideration.`,
    },
  });
  // About half the fleet has acknowledged its gate already (decided by the name, so it is stable).
  const acked = hexOf(`${p.name}/ack`, 1) < "8";
  push({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "admin-acks", namespace: "openshift-config" },
    data: acked ? { [gate]: "true" } : {},
  });

  // MachineSets.
  const msTemplate = byKind("MachineSet")[0]!;
  const awsProvider = (msTemplate.spec as { template: { spec: { providerSpec: { value: Record<string, unknown> } } } }).template.spec
    .providerSpec.value;
  for (const ms of machineSets) {
    const obj = structuredClone(msTemplate) as KubeObject & {
      spec: {
        template: { spec: { providerSpec: { value: unknown } }; metadata: { labels: Record<string, string> } };
        selector: { matchLabels: Record<string, string> };
      };
    };
    obj.metadata = {
      name: ms.name,
      namespace: "openshift-machine-api",
      uid: uidOf(`${p.name}/${ms.name}`),
      generation: 1,
      creationTimestamp: iso(start),
      labels: ms.labels,
      annotations: msTemplate.metadata.annotations,
    };
    if (ms.owned)
      obj.metadata.ownerReferences = [
        { apiVersion: "example.com/v1", kind: "NodePoolController", name: "workers", uid: uidOf(`${p.name}/owner`) },
      ];
    obj.spec.selector.matchLabels = {
      "machine.openshift.io/cluster-api-cluster": p.infraId,
      "machine.openshift.io/cluster-api-machineset": ms.name,
    };
    obj.spec.template.metadata.labels = {
      ...obj.spec.template.metadata.labels,
      "machine.openshift.io/cluster-api-cluster": p.infraId,
      "machine.openshift.io/cluster-api-machineset": ms.name,
    };
    obj.spec.template.spec.providerSpec.value = providerSpec(p, ms, structuredClone(awsProvider));
    push(obj);
  }

  // Pools, nodes and their MachineConfigNodes.
  const poolSizes: [string, number][] =
    p.topology === "SNO"
      ? [
          ["master", 1],
          ["worker", 0],
        ]
      : p.topology === "compact"
        ? [
            ["master", 3],
            ["worker", 0],
          ]
        : [
            ["master", 3],
            ["worker", 2 + (hexOf(p.name, 2).charCodeAt(0) % 4)],
            ...(p.imageMode ? ([["infra", 2]] as [string, number][]) : []),
          ];
  const poolTemplates = new Map(byKind("MachineConfigPool").map((pool) => [pool.metadata.name!, pool]));
  const pinnedName = "worker-prefetch-app-images";
  const hasPins = p.pinned !== "none" && minor >= 19;
  const rhcosRunning = minor >= 19 ? `${BOOT_IMAGE_BUILDS[minor]!.replace(/-0$/, "")}-1` : BOOT_IMAGE_BUILDS[minor]!;
  const [nodeMaster, nodeWorker] = [byKind("Node")[0]!, byKind("Node")[1]!];
  const mcnTemplate = byKind("MachineConfigNode")[0];
  for (const [pool, count] of poolSizes) {
    const template = structuredClone(poolTemplates.get(pool)!) as KubeObject & {
      spec: Record<string, unknown>;
      status: Record<string, unknown>;
    };
    template.metadata = { ...template.metadata, uid: uidOf(`${p.name}/mcp/${pool}`) };
    template.spec.pinnedImageSets = pool === "worker" && hasPins ? [{ name: pinnedName }] : [];
    const failedNode = p.pinned === "failed" ? 0 : -1;
    const done = p.pinned === "done" ? count : p.pinned === "progressing" ? Math.floor(count / 2) : Math.max(0, count - 1);
    Object.assign(template.status, {
      machineCount: count,
      updatedMachineCount: count,
      readyMachineCount: count,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
    });
    template.status.poolSynchronizersStatus =
      pool === "worker" && hasPins
        ? [
            {
              poolSynchronizerType: "PinnedImageSets",
              machineCount: count,
              updatedMachineCount: done,
              readyMachineCount: done,
              availableMachineCount: done,
              unavailableMachineCount: 0,
              observedGeneration: 2,
            },
          ]
        : [];
    if (count > 0 || pool !== "worker") push(template);
    for (let i = 0; i < count; i++) {
      const nodeName = `${p.infraId}-${pool}-${i}`;
      const node = structuredClone(pool === "master" ? nodeMaster : nodeWorker) as KubeObject & {
        status: { nodeInfo: Record<string, string>; allocatable: Record<string, string> };
      };
      const roleLabel =
        pool === "master"
          ? {
              "node-role.kubernetes.io/master": "",
              "node-role.kubernetes.io/control-plane": "",
              ...(p.topology !== "standard" ? { "node-role.kubernetes.io/worker": "" } : {}),
            }
          : { [`node-role.kubernetes.io/${pool}`]: "" };
      node.metadata = {
        name: nodeName,
        uid: uidOf(`${p.name}/node/${nodeName}`),
        labels: {
          "kubernetes.io/hostname": nodeName,
          "kubernetes.io/arch": "amd64",
          "kubernetes.io/os": "linux",
          "node.openshift.io/os_id": "rhcos",
          ...roleLabel,
        },
        annotations: node.metadata.annotations,
      };
      node.status.nodeInfo = {
        ...node.status.nodeInfo,
        osImage: `Red Hat Enterprise Linux CoreOS ${rhcosRunning} (Plow)`,
        kubeletVersion: `v1.${minor + 13}.7`,
      };
      // The failing node has too little ephemeral storage for the MCO's disk check (reference §6).
      if (pool === "worker" && i === failedNode)
        node.status.allocatable = { ...node.status.allocatable, "ephemeral-storage": String(20 * 1024 ** 3) };
      push(node);
      if (minor >= 19 && mcnTemplate) {
        const mcn = structuredClone(mcnTemplate) as KubeObject & {
          spec: Record<string, unknown>;
          status: { pinnedImageSets?: unknown[]; conditions: { type: string; status: string; reason?: string; message?: string }[] };
        };
        mcn.metadata = { name: nodeName, uid: uidOf(`${p.name}/mcn/${nodeName}`) };
        mcn.spec = { ...mcn.spec, node: { name: nodeName }, pool: { name: pool } };
        let pins: unknown[] = [];
        let progressing = false;
        let degraded = false;
        if (pool === "worker" && hasPins) {
          if (i === failedNode) {
            pins = [
              {
                name: pinnedName,
                currentGeneration: 1,
                desiredGeneration: 2,
                lastFailedGeneration: 2,
                lastFailedGenerationError: "storage available is less than minimum required",
              },
            ];
            degraded = true;
          } else if (i < done) pins = [{ name: pinnedName, currentGeneration: 2, desiredGeneration: 2 }];
          else {
            pins = [{ name: pinnedName, currentGeneration: 1, desiredGeneration: 2 }];
            progressing = true;
          }
        }
        mcn.status.pinnedImageSets = pins;
        mcn.status.conditions = mcn.status.conditions.map((c) =>
          c.type === "PinnedImageSetsProgressing"
            ? progressing
              ? { ...c, status: "True", reason: "ImagePrefetch", message: `node is prefetching images: ${nodeName}` }
              : { ...c, status: "False", reason: "AsExpected", message: "All is good" }
            : c.type === "PinnedImageSetsDegraded"
              ? degraded
                ? {
                    ...c,
                    status: "True",
                    reason: "PrefetchFailed",
                    message: "One or more PinnedImageSet is experiencing an error. See PinnedImageSet list for more details.",
                  }
                : { ...c, status: "False", reason: "AsExpected", message: "All is good" }
              : c.type === "Updated"
                ? { ...c, message: `Node ${nodeName} Updated` }
                : c,
        );
        push(mcn);
      }
    }
  }
  if (hasPins) {
    const pis = structuredClone(byKind("PinnedImageSet").find((o) => o.metadata.name === pinnedName)!);
    pis.metadata = { ...pis.metadata, uid: uidOf(`${p.name}/pis`) };
    push(pis);
  }
  if (p.imageMode) {
    for (const kind of ["MachineOSConfig", "MachineOSBuild"]) push(structuredClone(byKind(kind)[0]!));
  }
  // Source and rendered MachineConfigs by the names the pools list, so every cluster can be previewed.
  const osImageURL = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hexOf(`${p.name}/os/${current}`, 64)}`;
  for (const mc of machineConfigsForPools(
    objects.filter((o) => o.kind === "MachineConfigPool"),
    osImageURL,
  ))
    push(mc);
  cv.status.conditions = withCvoUpgradeable(
    cv.status.conditions as { type: string; status: string; lastTransitionTime?: string }[],
    cvoInputsOf(objects),
    iso(new Date(start.getTime() + (p.history.length - 1) * 100 * 86_400_000)),
  );
  return objects;
}

/** The fleet for `--clusters N --seed S`: the two reference clusters, then N-2 generated ones. */
export function generateFleet(count: number, seed: number): ClusterSpec[] {
  const specs: ClusterSpec[] = [
    {
      name: "prod-east",
      ocpVersion: "4.19.10",
      token: tokenFor("prod-east", seed),
      readOnlyToken: tokenFor("prod-east-reader", seed),
      objects: prodEastObjects,
    },
    {
      name: "prod-east-422",
      ocpVersion: "4.22.3",
      token: tokenFor("prod-east-422", seed),
      readOnlyToken: tokenFor("prod-east-422-reader", seed),
      objects: prodEast422Objects,
    },
  ];
  for (let i = 0; specs.length < count; i++) {
    const params = paramsFor(i, seed);
    specs.push({
      name: params.name,
      ocpVersion: params.history[0]!,
      token: tokenFor(params.name, seed),
      readOnlyToken: tokenFor(`${params.name}-reader`, seed),
      faults: params.faults,
      objects: () => generatedObjects(params),
    });
  }
  return specs.slice(0, Math.max(count, 0));
}

export const tokenFor = (name: string, seed: number) => `sha256~${hexOf(`${seed}/${name}`, 43)}`;
