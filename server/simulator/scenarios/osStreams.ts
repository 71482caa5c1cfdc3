import type { KubeObject } from "../objectStore";
import { osImageStreamObject } from "../osImageStream";
import { machineConfigsForPools } from "./machineConfigs";
import { moveClusterVersion, prodEast422Objects } from "./prodEast";

/**
 * prod-east at 4.23.1 with OS image streams in use (docs/openshift.md §25.1, as the MCO's release-4.23
 * render controller behaves):
 * - the worker pool moved to rhel-10 (spec and status.osImageStream) and runs crun;
 * - the custom infra pool names no stream, so it inherits rhel-10 from the worker pool
 *   (`GetEffectiveOSImageStreamName`), but a ContainerRuntimeConfig sets its CRI-O default runtime to
 *   runc: the render controller refuses it (`validateNoRuncOnRHEL10FromOSImageStream`), the pool is
 *   RenderDegraded in the MCO's words and keeps its last rendered configuration, still on rhel-9;
 * - master takes the cluster default, rhel-9.
 */
const ROLE = "machineconfiguration.openshift.io/role";
const INFRA_RENDERED = "rendered-infra-8c1f0e6a2d4b47a99f3e5b1c7d20a6e4";
const INFRA_REFUSED =
  "Failed to render configuration for pool infra: MachineConfigPool infra targets a RHEL 10 OS image where runc is not available. " +
  "To unblock, migrate to crun by removing any ContainerRuntimeConfig that sets defaultRuntime to runc, " +
  'and removing any MachineConfig that sets default_runtime = "runc" in CRI-O configuration under /etc/crio/crio.conf.d/';

/** The container runtime controller's output for defaultRuntime: runc (container-runtime-config helpers.go `createCRIODropinFiles`). */
function infraRuntimeConfig(): KubeObject[] {
  const dropIn = '[crio]\n  [crio.runtime]\n    default_runtime = "runc"\n';
  return [
    {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "ContainerRuntimeConfig",
      metadata: { name: "infra-runc" },
      spec: {
        machineConfigPoolSelector: { matchLabels: { "pools.operator.machineconfiguration.openshift.io/infra": "" } },
        containerRuntimeConfig: { defaultRuntime: "runc" },
      },
      status: { observedGeneration: 1, conditions: [{ type: "Success", status: "True", message: "Success" }] },
    },
    {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: {
        name: "99-infra-generated-containerruntime",
        labels: { [ROLE]: "infra" },
        annotations: { "machineconfiguration.openshift.io/generated-by-controller-version": "simulated" },
        ownerReferences: [{ apiVersion: "machineconfiguration.openshift.io/v1", kind: "ContainerRuntimeConfig", name: "infra-runc" }],
      },
      spec: {
        config: {
          ignition: { version: "3.5.0" },
          storage: {
            files: [
              {
                path: "/etc/crio/crio.conf.d/01-ctrcfg-defaultRuntime",
                mode: 420,
                overwrite: true,
                contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from(dropIn).toString("base64")}` },
              },
            ],
          },
        },
        osImageURL: "",
      },
    },
  ];
}

type Pool = KubeObject & { spec: Record<string, unknown>; status: Record<string, unknown> & { conditions?: Record<string, unknown>[] } };

export function osStreams423Objects(): KubeObject[] {
  const base = prodEast422Objects();
  const osImage = (base.find((o) => o.kind === "MachineConfig" && o.metadata.name === "00-worker")?.spec as { osImageURL?: string })
    ?.osImageURL;
  const runtime = infraRuntimeConfig();
  const pools = base
    .filter((o): o is Pool => o.kind === "MachineConfigPool")
    .map((p) => {
      const pool = structuredClone(p);
      if (pool.metadata.name === "worker") {
        pool.spec.osImageStream = { name: "rhel-10" };
        pool.status.osImageStream = { name: "rhel-10" };
      }
      if (pool.metadata.name === "infra") {
        const configuration = pool.spec.configuration as { name: string; source: Record<string, string>[] };
        configuration.name = INFRA_RENDERED;
        configuration.source = [
          ...configuration.source,
          { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", name: "99-infra-generated-containerruntime" },
        ];
        pool.status.osImageStream = { name: "rhel-9" };
        const at = new Date(Date.parse("2026-08-20T10:00:00Z")).toISOString().replace(/\.\d{3}Z$/, "Z");
        pool.status.conditions = (pool.status.conditions ?? []).map((c) =>
          c.type === "RenderDegraded" || c.type === "Degraded"
            ? {
                ...c,
                status: "True",
                reason: "",
                message: c.type === "RenderDegraded" ? INFRA_REFUSED : INFRA_REFUSED,
                lastTransitionTime: at,
              }
            : c,
        );
      }
      return pool;
    });
  const rest = base.filter((o) => o.kind !== "MachineConfigPool" && o.kind !== "MachineConfig" && o.kind !== "OSImageStream");
  // At 4.23 the template controller has cleared the OS image from the MachineConfigs it generates
  // (template_controller.go `clearImageURLs`).
  const configs = machineConfigsForPools(
    pools,
    osImage ?? "",
    runtime.filter((o) => o.kind === "MachineConfig"),
  ).map((mc) => (/^0[01]-/.test(mc.metadata.name!) ? { ...mc, spec: { ...(mc.spec as object), osImageURL: "" } } : mc));
  return [
    ...rest.map((o) => (o.kind === "ClusterVersion" ? moveClusterVersion(o, ["4.23.1"]) : o)),
    ...pools,
    ...runtime.filter((o) => o.kind === "ContainerRuntimeConfig"),
    ...configs,
    osImageStreamObject("4.23.1") as KubeObject,
  ];
}
