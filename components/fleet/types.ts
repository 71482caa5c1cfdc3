/** The shapes /api/v1 returns for the fleet pages (kept here: components import nothing from server/). */
export type SkewStatus = "ok" | "at-risk" | "blocked" | "opted-out" | "unknown";
export type CheckStatus = "pass" | "warn" | "fail" | "unknown";
export type ContactStatus = "unknown" | "ok" | "unreachable" | "unauthorized" | "stale";

export type FleetCluster = {
  id: string;
  name: string;
  displayName: string;
  labels: Record<string, string>;
  platform: string | null;
  apiUrl: string;
  offline: boolean;
  lastContactAt: string | null;
  lastContactStatus: ContactStatus;
  lastContactError: string | null;
  version: string | null;
  skewStatus: SkewStatus;
  skewSummary: string | null;
  enforcementMode: string | null;
  oldestBootImage: string | null;
  readinessTarget: string | null;
  readinessStatus: CheckStatus;
  readinessBlocker: string | null;
  lastSeenAt: string | null;
  stale: boolean;
};

export type FleetSummary = {
  clusters: number;
  bySkew: Record<string, number>;
  byReadiness: Record<string, number>;
  versions: { minor: string; count: number }[];
  stale: number;
  offline: number;
  mostCommonBlocker: { title: string; clusters: number } | null;
  generatedAt: string;
};

export type FleetTimeline = { from: string; to: string; days: { day: string; counts: Record<string, number>; inferred: number }[] };

export type Condition = { type: string; status: string; reason: string | null; message: string | null; since: string | null };

export type MachineSet = {
  machineSet: string;
  display: string;
  rhcosBuild: string | null;
  ocpVersion: string | null;
  provenance: "stream" | "image-name" | "catalog" | "install-version" | "unknown";
  matchesStream: boolean | null;
  mco: { action: "update" | "skip"; reason: string };
  ifAllManaged: { action: "update" | "skip"; reason: string };
  notes: string[];
  replicas: number | null;
};

export type Snapshot = {
  version: {
    current: string | null;
    desired: string | null;
    channel: string | null;
    updating: boolean;
    history: { version: string; state: string; startedTime: string | null; completionTime: string | null }[];
    conditions: Condition[];
  } | null;
  platform: string | null;
  topology: string | null;
  machineConfigOperator: Condition[] | null;
  machineSets: MachineSet[];
  pools: {
    name: string;
    machineCount: number;
    readyMachineCount: number;
    updatedMachineCount: number;
    degradedMachineCount: number;
    paused: boolean;
    degraded: boolean;
    updating: boolean;
    imageMode: boolean;
    pinnedImageSets: string[];
  }[];
  nodes: {
    name: string;
    pool: string | null;
    roles: string[];
    osImage: string | null;
    ready: boolean | null;
    pinned: {
      set: string;
      currentGeneration: number | null;
      desiredGeneration: number | null;
      lastFailedGeneration: number | null;
      error: string | null;
    }[];
    pinnedDegraded: boolean;
    pinnedMessage: string | null;
  }[];
  problems: { part: string; kind: string; message: string }[];
};

export type ReadinessCheck = {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  evidence: { kind: string; name: string; namespace?: string; field?: string }[];
  remediation: string | null;
};
export type Readiness = {
  target: string;
  current: string | null;
  updateKind: string;
  status: CheckStatus;
  checks: ReadinessCheck[];
  blockers: string[];
};

export type SkewAssessment = {
  release: string;
  limits: { ocpVersion: string; rhelVersion: string } | null;
  enforcement: {
    mode: string;
    value: { ocpVersion: string | null; rhcosVersion: string | null } | null;
    source: string;
    basis: string;
    installVersionFallback: boolean;
  };
  block: { reason: string; message: string; source: string } | null;
  notes: string[];
};

export type ClusterDetail = {
  cluster: FleetCluster;
  snapshot: Snapshot | null;
  skew: {
    status: SkewStatus;
    summary: string;
    assessment: SkewAssessment | null;
    oldest: { machineSet: string; ocpVersion: string | null; rhcosBuild: string | null; lagMinors: number | null } | null;
    effectiveMode: string | null;
  } | null;
  lags: { machineSet: string; lagMinors: number | null }[];
  managedWhatIf: { supported: boolean; wouldUpdate: string[]; wouldSkip: { machineSet: string; reason: string }[]; result: string } | null;
  readiness: Readiness | null;
  observedAt: string | null;
};

export type Timeline = {
  cluster: string;
  from: string;
  to: string;
  version: { at: string; inferred: boolean; version: string | null }[];
  oldestBootImage: { at: string; inferred: boolean; ocpVersion: string | null; rhcosBuild: string | null }[];
  skew: { at: string; inferred: boolean; status: string }[];
  limit: { ocpVersion: string; fromRelease: string } | null;
  events: { at: string; inferred: boolean; kind: string; title: string }[];
};
