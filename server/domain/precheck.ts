import type { LabelSelector } from "./labelSelector";

/**
 * What one check before pinning a bundle reports, and the pool as the checks see it. Apart from
 * bundlePrechecks.ts, which runs the checks, so that the checks it calls (pinnedSetPools.ts,
 * registryLess.ts) can speak of them without importing the module that imports them.
 */
export type PrecheckStatus = "pass" | "warn" | "fail";
export type Precheck = {
  id: string;
  /**
   * This finding's identity: the check, its pool and what it names. A warning is confirmed by its
   * key, so one that changed or appeared since the person read the prechecks is not confirmed.
   */
  key: string;
  /** The pool the check is about; null for the whole cluster. */
  pool: string | null;
  title: string;
  status: PrecheckStatus;
  detail: string;
  /** What the technician can do about it; null when nothing is needed. */
  remedy: string | null;
  /** Nodes, pods or sets the check names. */
  items: string[];
};

export type PrecheckPool = {
  name: string;
  machineConfigSelector?: LabelSelector;
  degraded: boolean;
  updating: boolean;
  degradedMessage: string | null;
};
