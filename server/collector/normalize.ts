import { MCO_RULES, type McoRelease } from "../domain/mcoRelease";
import { resolveBootImage } from "../domain/bootImages";
import type {
  BareMetalProvisioningFacts,
  ClusterSnapshot,
  EnforcementValue,
  FeatureGateFacts,
  MachineSetFacts,
  ReadProblem,
  StreamImage,
} from "../domain/snapshot";
import { conditionOf } from "../domain/snapshot";
import { formatVersion, parseOcpVersion } from "../domain/versions";
import type { ClusterObjects } from "../kube/readers";
import { alertFacts } from "./alerts";
import { internalReleaseImageFacts } from "./internalReleaseImage";
import { withOsImageStreams } from "./osImageStreams";
import { arr, conditionsOf, num, obj, str, type Any } from "./fields";
import { catalogKey } from "../domain/bootImageReference";
import { type BootImageCatalog, type ClusterBootContext, type VSphereInfrastructure, emptyCatalog } from "../domain/bootImageInputs";
import { versionFacts } from "./clusterVersionFacts";
import { imageModeFactsOf, nodeFactsOf, pinnedImageSetFactsOf, poolFactsOf } from "./poolsAndNodes";

/**
 * Turns the objects read from one cluster into a ClusterSnapshot. Every field is read defensively:
 * objects come from clusters of many versions, and a part that could not be read becomes a
 * problem entry, never an exception.
 */
function enforcementValue(v: unknown): (EnforcementValue & { mode: string | null }) | null {
  const o = obj(v);
  if (!Object.keys(o).length) return null;
  return { mode: str(o.mode), ocpVersion: str(o.ocpVersion), rhcosVersion: str(o.rhcosVersion) };
}

function streamImages(stream: unknown, releaseVersion: string | null): StreamImage[] {
  const ocp = parseOcpVersion(releaseVersion);
  const ocpVersion = ocp ? formatVersion(ocp) : null;
  const out: StreamImage[] = [];
  for (const archValue of Object.values(obj(obj(stream).architectures))) {
    const images = obj(obj(archValue).images);
    for (const [region, entry] of Object.entries(obj(obj(images.aws).regions))) {
      const image = str(obj(entry).image);
      const release = str(obj(entry).release);
      const key = image ? catalogKey({ platform: "AWS", ami: image, region, via: "id" }) : null;
      if (key && release) out.push({ key, rhcosBuild: release, ocpVersion });
    }
    const gcp = obj(images.gcp);
    if (str(gcp.project) && str(gcp.name) && str(gcp.release)) {
      const key = catalogKey({ platform: "GCP", image: `projects/${gcp.project}/global/images/${gcp.name}` });
      if (key) out.push({ key, rhcosBuild: String(gcp.release), ocpVersion });
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * The architecture the MCO runs on, which it assumes for a MachineSet without an architecture
 * annotation (`getArchFromMachineSet` uses the controller binary's own architecture; §15.3): the
 * `kubernetes.io/arch` label of the control-plane nodes, when they agree.
 */
function controlPlaneArchitectureOf(nodes: Any[]): string | null {
  const arches = new Set(
    nodes
      .map((n) => obj(obj(n.metadata).labels) as Record<string, string>)
      .filter((l) => "node-role.kubernetes.io/master" in l || "node-role.kubernetes.io/control-plane" in l)
      .map((l) => l["kubernetes.io/arch"])
      .filter((a): a is string => !!a),
  );
  return arches.size === 1 ? [...arches][0]! : null;
}

/**
 * The bare-metal legacy provisioning path (docs/openshift.md §16.1 rule 2): a Provisioning with an OS download
 * URL is legacy, none (or an empty URL) is not; a kind not served or a failed read leaves it unknown.
 */
function bareMetalProvisioning(r: ClusterObjects["provisioning"]): BareMetalProvisioningFacts {
  const what = "Provisioning provisioning-configuration";
  if (r.status === "ok")
    return str(obj(r.value.spec).provisioningOSDownloadURL)
      ? { legacyPath: true, reason: `${what} has spec.provisioningOSDownloadURL set` }
      : { legacyPath: false, reason: `${what} has no spec.provisioningOSDownloadURL` };
  if (r.status === "not-available")
    return r.missing === "object"
      ? { legacyPath: false, reason: `the cluster has no ${what}` }
      : { legacyPath: null, reason: `the cluster does not serve metal3.io/v1alpha1 Provisioning (${r.reason})` };
  return { legacyPath: null, reason: `${what} could not be read: ${r.error.message}` };
}

type ReadResult<T> = { status: "ok"; value: T } | { status: "not-available"; reason: string } | { status: "error"; error: Error };
type ListResult<T> =
  | { status: "ok"; items: T[]; skipped: { name: string; problem: string }[] }
  | { status: "not-available"; reason: string }
  | { status: "error"; error: Error };

/** The objects read, each a value or null, with a problem entry for each part that could not be read. */
function readParts(read: ClusterObjects, problems: ReadProblem[]) {
  const failed = (part: string, r: { status: "not-available"; reason: string } | { status: "error"; error: Error }) =>
    problems.push(
      r.status === "error" ? { part, kind: "error", message: r.error.message } : { part, kind: "not-available", message: r.reason },
    );
  const value = <T>(part: string, r: ReadResult<T>) => {
    if (r.status === "ok") return r.value;
    failed(part, r);
    return null;
  };
  const items = <T>(part: string, r: ListResult<T>): T[] | null => {
    if (r.status === "ok") {
      for (const s of r.skipped) problems.push({ part, kind: "error", message: `${s.name} skipped: ${s.problem}` });
      return r.items;
    }
    failed(part, r);
    return null;
  };
  const parts = {
    cv: value("ClusterVersion", read.clusterVersion) as Any | null,
    co: value("ClusterOperator machine-config", read.machineConfigOperator) as Any | null,
    infra: value("Infrastructure", read.infrastructure) as Any | null,
    mc: value("MachineConfiguration", read.machineConfiguration) as Any | null,
    machineSets: items("MachineSets", read.machineSets) as Any[] | null,
    bootImagesCm: value("coreos-bootimages", read.bootImages) as Any | null,
    adminGates: read.adminGates.status === "ok" ? (obj(read.adminGates.value.data) as Record<string, string>) : null,
    adminAcks: read.adminAcks.status === "ok" ? (obj(read.adminAcks.value.data) as Record<string, string>) : null,
    pools: (items("MachineConfigPools", read.pools) ?? []) as Any[],
    mcns: (read.machineConfigNodes.status === "ok" ? read.machineConfigNodes.items : []) as Any[],
    pinnedSets: (read.pinnedImageSets.status === "ok" ? read.pinnedImageSets.items : []) as Any[],
    nodes: (items("Nodes", read.nodes) ?? []) as Any[],
    moscs: (read.machineOSConfigs.status === "ok" ? read.machineOSConfigs.items : []) as Any[],
    mosbs: (read.machineOSBuilds.status === "ok" ? read.machineOSBuilds.items : []) as Any[],
  };
  for (const [part, r] of [
    ["MachineConfigNodes", read.machineConfigNodes],
    ["PinnedImageSets", read.pinnedImageSets],
    ["MachineOSConfigs", read.machineOSConfigs],
    ["Provisioning", read.provisioning],
  ] as const)
    if (r.status === "error") problems.push({ part, kind: "error", message: r.error.message });
  return parts;
}

/** MachineConfiguration: which MachineSets the boot image controller manages, and skew enforcement. */
function machineConfigurationFacts(mc: Any | null, current: string | null) {
  const mcSpec = obj(mc?.spec);
  const mcStatus = obj(mc?.status);
  const managerMode = (managers: unknown) =>
    str(
      obj(
        arr(managers)
          .map(obj)
          .find((m) => m.resource === "machinesets")?.selection,
      ).mode,
    );
  const statusManagers = arr(obj(mcStatus.managedBootImagesStatus).machineManagers).map(obj);
  const specManagerList = obj(mcSpec.managedBootImages).machineManagers;
  // Before 4.19 the boot image controller enrols by the spec; from 4.19 by the status the operator writes (§13.2).
  const currentVersion = parseOcpVersion(current);
  const enrolsBySpec = !!currentVersion && currentVersion.major === 4 && currentVersion.minor <= 18;
  // The 4.20+ API carries bootImageSkewEnforcement in its status; older clusters never write it.
  const served = mc ? "bootImageSkewEnforcementStatus" in mcStatus || "bootImageSkewEnforcement" in mcSpec : false;
  const specEnforcement = obj(mcSpec.bootImageSkewEnforcement);
  const statusEnforcement = obj(mcStatus.bootImageSkewEnforcementStatus);
  const enforcement: ClusterSnapshot["enforcement"] = mc
    ? {
        served,
        spec: str(specEnforcement.mode) ? { mode: String(specEnforcement.mode), manual: enforcementValue(specEnforcement.manual) } : null,
        status: str(statusEnforcement.mode)
          ? {
              mode: String(statusEnforcement.mode),
              automatic: enforcementValue(statusEnforcement.automatic),
              manual: enforcementValue(statusEnforcement.manual),
            }
          : null,
      }
    : null;
  return {
    enrolling: enrolsBySpec ? arr(specManagerList).map(obj) : statusManagers,
    enforcement,
    managedMachineSets: {
      spec: managerMode(specManagerList),
      status: managerMode(statusManagers),
      specEmptyList: Array.isArray(specManagerList) && specManagerList.length === 0,
    },
    bootConditions: conditionsOf(mcStatus.conditions).filter((c) => c.type.startsWith("BootImageUpdate")),
    optedInAt: str(obj(obj(mc?.metadata).annotations)["machineconfiguration.openshift.io/boot-image-updates-opted-in-at"]),
  };
}

/** The coreos-bootimages ConfigMap: the stream of boot images this release publishes, and the release. */
function bootImageStream(bootImagesCm: Any | null, problems: ReadProblem[]) {
  const cmData = obj(bootImagesCm?.data);
  let stream: unknown = null;
  if (str(cmData.stream)) {
    try {
      stream = JSON.parse(String(cmData.stream));
    } catch {
      problems.push({ part: "coreos-bootimages", kind: "error", message: "data.stream is not valid JSON" });
    }
  }
  return { stream, releaseVersion: str(cmData.releaseVersion) };
}

/** Each MachineSet's boot image as the MCO sees it now, and as it would if every MachineSet were managed. */
function machineSetFactsOf(machineSets: Any[], context: ClusterBootContext, catalog: BootImageCatalog): MachineSetFacts[] {
  const allManaged = {
    ...context,
    machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
  };
  return machineSets
    .map((ms) => {
      const meta = obj(ms.metadata);
      const spec = obj(ms.spec);
      const template = obj(spec.template);
      const input = {
        name: String(meta.name),
        labels: obj(meta.labels) as Record<string, string>,
        annotations: obj(meta.annotations) as Record<string, string>,
        ownerReferences: arr(meta.ownerReferences) as { kind: string; name: string }[],
        templateLabels: obj(obj(template.metadata).labels) as Record<string, string>,
        providerSpec: obj(obj(template.spec).providerSpec).value,
      };
      const resolved = resolveBootImage(input, context, catalog);
      // What the controller did to a MachineSet it enrols now says something; to one it does not, nothing.
      const whatIf = {
        ...allManaged,
        hypothetical: true,
        controllerSettled: context.controllerSettled && resolved.mco.action !== "exclude",
      };
      // By each MCO line's rules too, for predictions at a later release (mcoRelease.ts).
      const ifAllManagedAt = Object.fromEntries(
        (Object.keys(MCO_RULES) as McoRelease[]).map((line) => [
          line,
          resolveBootImage(input, { ...whatIf, release: `${line}.0` }, catalog).mco,
        ]),
      );
      return { ...resolved, replicas: num(spec.replicas), ifAllManaged: resolveBootImage(input, whatIf, catalog).mco, ifAllManagedAt };
    })
    .sort((a, b) => a.machineSet.localeCompare(b.machineSet));
}

/**
 * FeatureGate/cluster: spec.featureSet ("" means Default) and the gates enabled for the cluster's
 * current version (status.featureGates[].version). A cluster that does not serve it is left null
 * without a problem; a read error is a problem.
 */
export function featureGateFacts(
  r: ClusterObjects["featureGate"],
  current: string | null,
  problems: ReadProblem[],
): FeatureGateFacts | null {
  if (r.status !== "ok") {
    if (r.status === "error") problems.push({ part: "FeatureGate", kind: "error", message: r.error.message });
    return null;
  }
  const entry = (r.value.status?.featureGates ?? []).find((g) => g && current && g.version === current) ?? null;
  return {
    featureSet: r.value.spec?.featureSet || "Default",
    version: entry?.version ?? null,
    enabled: entry ? (entry.enabled ?? []).flatMap((g) => (g?.name ? [g.name] : [])).sort() : null,
  };
}

/**
 * What the boot image controller matches a vSphere MachineSet's workspace against
 * (vsphere_helpers.go createNewVMTemplate): Infrastructure spec.platformSpec.vsphere's vCenters and
 * failure domains; null when the field is unset, undefined when the Infrastructure was not read.
 */
function vsphereInfrastructureOf(infra: Any | null): VSphereInfrastructure | null | undefined {
  if (!infra) return undefined;
  const vsphere = obj(obj(infra.spec).platformSpec).vsphere;
  if (vsphere == null) return null;
  const v = obj(vsphere);
  return {
    vcenters: arr(v.vcenters).map((c) => str(obj(c).server) ?? ""),
    failureDomains: arr(v.failureDomains).map((f) => {
      const fd = obj(f);
      const topology = obj(fd.topology);
      return {
        server: str(fd.server) ?? "",
        datacenter: str(topology.datacenter) ?? "",
        datastore: str(topology.datastore) ?? "",
        resourcePool: str(topology.resourcePool) ?? "",
        vmGroup: str(obj(obj(fd.zoneAffinity).hostGroup).vmGroup) ?? "",
      };
    }),
  };
}

export function normalizeSnapshot(read: ClusterObjects, catalog: BootImageCatalog = emptyCatalog): ClusterSnapshot {
  const problems: ReadProblem[] = [];
  const parts = readParts(read, problems);
  const { history, current, version } = versionFacts(parts.cv);
  const infraStatus = obj(parts.infra?.status);
  const platform = str(obj(infraStatus.platformStatus).type) ?? str(infraStatus.platform);
  const azureCloudName = str(obj(obj(infraStatus.platformStatus).azure).cloudName);
  const controlPlaneArchitecture = controlPlaneArchitectureOf(parts.nodes);
  const configuration = machineConfigurationFacts(parts.mc, current);
  const { stream, releaseVersion } = bootImageStream(parts.bootImagesCm, problems);
  const { bootConditions } = configuration;
  const context: ClusterBootContext = {
    stream,
    releaseVersion,
    history,
    platform,
    machineManagers: configuration.enrolling as ClusterBootContext["machineManagers"],
    multiArch: version?.multiArch,
    azureCloudName,
    controlPlaneArchitecture,
    vsphere: platform === "VSphere" ? vsphereInfrastructureOf(parts.infra) : undefined,
    controllerSettled:
      conditionOf(bootConditions, "BootImageUpdateProgressing")?.status === "False" &&
      conditionOf(bootConditions, "BootImageUpdateDegraded")?.status !== "True",
    automaticRhcosVersion:
      configuration.enforcement?.status?.mode === "Automatic" ? (configuration.enforcement.status.automatic?.rhcosVersion ?? null) : null,
  };
  const streams = withOsImageStreams(read, parts.pools, poolFactsOf(parts.pools, parts.moscs), version, problems);
  return {
    version,
    platform,
    topology: str(infraStatus.controlPlaneTopology),
    azureCloudName,
    controlPlaneArchitecture,
    machineConfigOperator: parts.co ? conditionsOf(obj(parts.co.status).conditions) : null,
    enforcement: configuration.enforcement,
    managedMachineSets: configuration.managedMachineSets,
    optedInAt: configuration.optedInAt,
    bootImageConditions: bootConditions,
    bootImageRelease: releaseVersion,
    streamImages: streamImages(stream, releaseVersion),
    machineSets: machineSetFactsOf(parts.machineSets ?? [], context, catalog),
    pools: streams.pools,
    nodes: nodeFactsOf(parts.nodes, parts.mcns),
    pinnedImageSets: pinnedImageSetFactsOf(parts.pinnedSets),
    imageMode: imageModeFactsOf(parts.moscs, parts.mosbs),
    adminGates: parts.adminGates,
    adminAcks: parts.adminAcks,
    bareMetalProvisioning: bareMetalProvisioning(read.provisioning),
    internalReleaseImage: internalReleaseImageFacts(read, problems),
    alerts: alertFacts(read, problems),
    featureGate: featureGateFacts(read.featureGate, current, problems),
    osImageStream: streams.osImageStream,
    renderedConfigsUnread: streams.renderedConfigsUnread,
    problems,
  };
}
