/**
 * FeatureGate `cluster` (config.openshift.io/v1) as an OpenShift cluster serves it: spec.featureSet
 * (left out for the Default feature set, as the installer writes it) and, per release version the
 * cluster has run, the gates its operators turned on and off. The simulator lists only the gates it
 * models itself (docs/simulator.md), by openshift/api features/features.go:
 * - BootImageSkewEnforcement: Default from 4.22, TechPreviewNoUpgrade from 4.21, DevPreviewNoUpgrade from 4.20;
 * - IrreconcilableMachineConfig (listed from 4.22): TechPreviewNoUpgrade and DevPreviewNoUpgrade at
 *   4.22, every feature set from 4.23 (openshift/api#2929);
 * - OSStreams: TechPreviewNoUpgrade and DevPreviewNoUpgrade in 4.21 and 4.22, every feature set of a
 *   self-managed cluster from 4.23.
 */
export type SimFeatureSet = "Default" | "TechPreviewNoUpgrade" | "DevPreviewNoUpgrade";

type Gate = { name: string; from: Record<SimFeatureSet, number>; listedFrom: number };

const GATES: Gate[] = [
  { name: "BootImageSkewEnforcement", from: { Default: 22, TechPreviewNoUpgrade: 21, DevPreviewNoUpgrade: 20 }, listedFrom: 20 },
  { name: "IrreconcilableMachineConfig", from: { Default: 23, TechPreviewNoUpgrade: 22, DevPreviewNoUpgrade: 22 }, listedFrom: 22 },
  { name: "OSStreams", from: { Default: 23, TechPreviewNoUpgrade: 21, DevPreviewNoUpgrade: 21 }, listedFrom: 21 },
];

const minorOf = (version: string) => {
  const m = /^(\d+)\.(\d+)\./.exec(version);
  return !m ? 0 : Number(m[1]) > 4 ? Number.MAX_SAFE_INTEGER : Number(m[2]);
};

/** One status.featureGates entry: the gates on and off at `version`. */
export function featureGatesAt(version: string, featureSet: SimFeatureSet) {
  const minor = minorOf(version);
  const listed = GATES.filter((g) => minor >= g.listedFrom);
  return {
    version,
    enabled: listed.filter((g) => minor >= g.from[featureSet]).map((g) => ({ name: g.name })),
    disabled: listed.filter((g) => minor < g.from[featureSet]).map((g) => ({ name: g.name })),
  };
}

export function featureGateObject(version: string, featureSet: SimFeatureSet = "Default") {
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "FeatureGate",
    metadata: { name: "cluster" },
    spec: featureSet === "Default" ? {} : { featureSet },
    status: { featureGates: [featureGatesAt(version, featureSet)] },
  };
}

/** After an upgrade: the new version's entry first, older ones kept (as the cluster's operators leave them). */
export function withVersion<T extends { status?: { featureGates?: { version?: string }[] } }>(
  fg: T,
  version: string,
  featureSet: SimFeatureSet,
): T {
  const others = (fg.status?.featureGates ?? []).filter((g) => g.version !== version);
  return { ...fg, status: { ...fg.status, featureGates: [featureGatesAt(version, featureSet), ...others] } };
}
