import { clusterSkew, managedBootImagesWhatIf } from "../domain/clusterSkew";
import { machineSetLag } from "../domain/oldestBootImage";
import type { Reach } from "../domain/grants";
import { defaultTarget, evaluateReadiness, rollUpReadiness, type Readiness } from "../domain/readiness";
import type { ClusterDetail, FleetReadiness, FleetSummary as FleetSummaryAnswer, FleetTimeline, Timeline } from "./contract";
import { registryLessState } from "../domain/registryLess";
import type { SkewLimitEntry } from "../domain/skew";
import type { ClusterSnapshot } from "../domain/snapshot";
import { compareVersionTexts } from "../domain/versions";
import { noSuchCluster, UserFacingError } from "../errors";
import { factsInWindow, findClusterState, fleetFactDeltas, type FactRow } from "../store/history";
import { listAcknowledgements } from "../store/acknowledgements";
import { listApplications } from "../store/bundles";
import { clusterInReach, findFleetRow, listFleetRowsInReach, type FleetRow } from "../store/fleet";
import { cachedFleetRows, invalidateFleetList, staleBefore } from "./fleetList";
import { currentFleetFacets, shownRow, versionsOf } from "./fleetPage";
import { CLUSTER_TIMELINE_DAYS, FLEET_TIMELINE_DAYS, timeWindow, type TimeWindow } from "./requestContract";
import { mergeSkewLimits, readExtraSkewLimits } from "./skewLimits";

/** What the fleet pages and the JSON API show; all of it read from the store, none from clusters. */
export type FleetCluster = FleetRow;

/** Every cluster with its summary, as of at most a few seconds ago (see fleetList.ts). */
export async function listFleet(): Promise<FleetCluster[]> {
  return cachedFleetRows();
}

export { invalidateFleetList };
export type { ClusterDetail, FleetReadiness, FleetTimeline, Timeline };

export async function skewLimits(): Promise<SkewLimitEntry[]> {
  return mergeSkewLimits(await readExtraSkewLimits());
}

/** The fleet summary with the time it was made (the API leaves the time out, so that an unchanged fleet keeps its ETag). */
export type FleetSummary = FleetSummaryAnswer & { generatedAt: string };

/** Counts from SQL aggregates: cheap enough for every open fleet page to poll. */
export async function fleetSummary(reach: Reach): Promise<FleetSummary> {
  const f = await currentFleetFacets(reach);
  return {
    clusters: f.clusters,
    bySkew: f.bySkew,
    byReadiness: f.byReadiness,
    byPlatform: f.byPlatform,
    byMode: f.byMode,
    versions: versionsOf(f.byMinor),
    stale: f.stale,
    offline: f.offline,
    registryLess: f.registryLess,
    mostCommonBlocker: f.topBlockers[0] ?? null,
    blockers: f.topBlockers,
    generatedAt: new Date().toISOString(),
  };
}

/** The cluster in the reader's reach; one outside it is answered exactly like one that does not exist. */
async function clusterOrThrow(name: string, reach: Reach): Promise<FleetCluster> {
  const row = await findFleetRow(name, staleBefore(), reach);
  if (!row) throw noSuchCluster(name);
  return row;
}

/** Refuses a cluster outside the reader's reach as if it did not exist (for paths that read the cluster elsewhere). */
export async function requireClusterInReach(name: string, reach: Reach): Promise<void> {
  if (!(await clusterInReach(name, reach))) throw noSuchCluster(name);
}

async function snapshotOf(row: FleetRow): Promise<ClusterSnapshot | null> {
  return (await findClusterState(row.id))?.snapshot ?? null;
}

/** One cluster's page, when it is in the reader's reach; its API URL only when `apiUrls` (admins). */
export async function clusterDetail(name: string, { apiUrls = false, reach }: { apiUrls?: boolean; reach: Reach }): Promise<ClusterDetail> {
  const cluster = shownRow(await clusterOrThrow(name, reach), apiUrls);
  const state = await findClusterState(cluster.id);
  const snapshot = state?.snapshot ?? null;
  if (!snapshot)
    return { cluster, snapshot: null, skew: null, lags: [], managedWhatIf: null, readiness: null, registryLess: null, observedAt: null };
  const limits = await skewLimits();
  const target = defaultTarget(snapshot);
  return {
    cluster,
    snapshot,
    skew: clusterSkew(snapshot, limits),
    lags: snapshot.machineSets.map((m) => ({
      machineSet: m.machineSet,
      lagMinors: machineSetLag(snapshot.version?.current ?? null, m),
    })),
    managedWhatIf: managedBootImagesWhatIf(snapshot),
    readiness: target ? evaluateReadiness(snapshot, target, { limits }) : null,
    registryLess: registryLessState(snapshot),
    observedAt: state!.observedAt,
  };
}

/** Readiness for `target` (checked by ReadinessQuery), or the cluster's default target. */
export async function clusterReadiness(name: string, target: string | null, reach: Reach): Promise<Readiness> {
  const cluster = await clusterOrThrow(name, reach);
  const snapshot = await snapshotOf(cluster);
  if (!snapshot) throw new UserFacingError(409, `${name} has not been read yet; readiness needs one successful sweep`);
  const chosen = target ?? defaultTarget(snapshot);
  if (!chosen) throw new UserFacingError(409, `${name}'s version is not known, so there is no default target; ask for one with ?target=`);
  return evaluateReadiness(snapshot, chosen, { limits: await skewLimits() });
}

/** Readiness rolled up over the clusters in the reader's reach. */
export async function fleetReadiness(target: string | null, reach: Reach): Promise<FleetReadiness> {
  const rows = await listFleetRowsInReach(staleBefore(), reach);
  const limits = await skewLimits();
  const items = await Promise.all(
    rows.map(async (r) => {
      const snapshot = await snapshotOf(r);
      const chosen = snapshot ? (target ?? defaultTarget(snapshot)) : null;
      return { cluster: r.name, readiness: snapshot && chosen ? evaluateReadiness(snapshot, chosen, { limits }) : null };
    }),
  );
  return rollUpReadiness(items);
}

type BootValue = { ocpVersion: string | null; rhcosBuild: string | null };

const older = (a: BootValue, b: BootValue) => compareVersionTexts(a.ocpVersion, b.ocpVersion) < 0;

/** Builds the chart series from fact rows in time order; rows before the window are clamped to its start. */
export function buildTimeline(cluster: string, rows: FactRow[], from: Date, to: Date, limits: SkewLimitEntry[]): Timeline {
  const clamp = (at: string) => (new Date(at) < from ? from.toISOString() : at);
  const t: Timeline = {
    cluster,
    from: from.toISOString(),
    to: to.toISOString(),
    version: [],
    oldestBootImage: [],
    skew: [],
    limit: null,
    events: [],
  };
  const first = limits[0];
  if (first) t.limit = { ocpVersion: first.ocpVersion, fromRelease: first.fromRelease };
  const boot = new Map<string, BootValue & { inferred: boolean }>();
  let lastOldest: string | null = null;
  let lastVersion: string | null = null;
  let lastEnforcement: string | null = null;
  let lastUpgradeable: string | null = null;
  for (const r of rows) {
    const v = (r.value ?? null) as Record<string, unknown> | null;
    const at = clamp(r.at);
    if (r.fact === "version") {
      const version = (v?.current as string | null) ?? null;
      t.version.push({ at, inferred: r.inferred, version });
      if (lastVersion && version && version !== lastVersion && new Date(r.at) >= from)
        t.events.push({ at, inferred: r.inferred, kind: "upgrade", title: `${lastVersion} → ${version}` });
      lastVersion = version ?? lastVersion;
    } else if (r.fact === "bootImage") {
      // A Windows MachineSet boots no RHCOS image: not a candidate for the oldest boot image.
      if (v && !v.windows)
        boot.set(r.key, {
          ocpVersion: (v.ocpVersion as string) ?? null,
          rhcosBuild: (v.rhcosBuild as string) ?? null,
          inferred: r.inferred,
        });
      else boot.delete(r.key);
      let oldest: (BootValue & { inferred: boolean }) | null = null;
      for (const b of boot.values()) if (!oldest || older(b, oldest)) oldest = b;
      const key = oldest ? `${oldest.ocpVersion}|${oldest.rhcosBuild}` : null;
      if (oldest && key !== lastOldest) {
        const point = { at, inferred: oldest.inferred, ocpVersion: oldest.ocpVersion, rhcosBuild: oldest.rhcosBuild };
        // Several MachineSets change at one instant: keep the last state of that instant only.
        if (t.oldestBootImage.at(-1)?.at === at) t.oldestBootImage[t.oldestBootImage.length - 1] = point;
        else t.oldestBootImage.push(point);
        lastOldest = key;
      }
    } else if (r.fact === "skew" && v) {
      t.skew.push({ at, inferred: r.inferred, status: String(v.status) });
    } else if (r.fact === "enforcement" && v) {
      const value = (v.ocpVersion ?? v.rhcosVersion ?? "") as string;
      const title = `Skew enforcement ${v.mode ?? "unset"}${value ? ` (${value})` : ""}`;
      // A first observation is an event only when it says something (a mode); unchanged rows never are.
      if (title !== lastEnforcement && (lastEnforcement !== null || v.mode) && new Date(r.at) >= from)
        t.events.push({ at, inferred: r.inferred, kind: "enforcement", title });
      lastEnforcement = title;
    } else if (r.fact === "upgradeable" && v) {
      const blocked = v.status === "False";
      const title = blocked ? `Upgradeable=False (${v.reason ?? "no reason"})` : "Upgradeable again";
      // "Upgradeable again" only after a block; a first observation of True is no event.
      if (title !== lastUpgradeable && (blocked || lastUpgradeable !== null) && new Date(r.at) >= from)
        t.events.push({ at, inferred: r.inferred, kind: "upgradeable", title });
      lastUpgradeable = title;
    }
  }
  return t;
}

const DAY = 86_400_000;

/** What people did to the cluster through Fleetskew: acknowledgements written, bundles applied, upgrades started. */
export function workflowEvents(
  acknowledgements: {
    appliedAt: string | null;
    mode: string;
    ocpVersion: string | null;
    rhcosVersion: string | null;
    decidedBy: string | null;
  }[],
  applications: {
    createdAt: string;
    releaseVersion: string;
    createdBy: string;
    upgradeStartedAt: string | null;
    upgradeStartedBy: string | null;
  }[],
): Timeline["events"] {
  const events: Timeline["events"] = [];
  for (const a of acknowledgements)
    if (a.appliedAt)
      events.push({
        at: a.appliedAt,
        inferred: false,
        kind: "acknowledgement",
        title: `Boot image acknowledged: ${a.mode === "None" ? "enforcement off" : (a.ocpVersion ?? a.rhcosVersion)}${a.decidedBy ? ` (approved by ${a.decidedBy})` : ""}`,
      });
  for (const b of applications) {
    events.push({ at: b.createdAt, inferred: false, kind: "bundle", title: `Bundle for ${b.releaseVersion} applied by ${b.createdBy}` });
    if (b.upgradeStartedAt)
      events.push({
        at: b.upgradeStartedAt,
        inferred: false,
        kind: "bundle",
        title: `Upgrade to ${b.releaseVersion} started by ${b.upgradeStartedBy ?? "someone"}`,
      });
  }
  return events;
}

/** The cluster's timeline over a window (timeWindowQuery checks one given in a query string). */
export async function clusterTimeline(
  name: string,
  reach: Reach,
  window: TimeWindow = timeWindow(CLUSTER_TIMELINE_DAYS),
): Promise<Timeline> {
  const { from, to } = window;
  const cluster = await clusterOrThrow(name, reach);
  const [rows, acknowledgements, applications] = await Promise.all([
    factsInWindow(cluster.id, ["version", "bootImage", "skew", "enforcement", "upgradeable"], from, to),
    listAcknowledgements({ clusterId: cluster.id, statuses: ["applied"] }),
    listApplications({ clusterId: cluster.id }),
  ]);
  const timeline = buildTimeline(name, rows, from, to, await skewLimits());
  const inWindow = (e: { at: string }) => new Date(e.at) >= from && new Date(e.at) <= to;
  timeline.events = [...timeline.events, ...workflowEvents(acknowledgements, applications).filter(inWindow)].sort((a, b) =>
    a.at.localeCompare(b.at),
  );
  return timeline;
}

/**
 * Clusters in the reader's reach per skew status at the end of each day (inferred history included,
 * and counted); over a long window, each point a few days apart, at most about 400 of them.
 */
export async function fleetTimeline(reach: Reach, window: TimeWindow = timeWindow(FLEET_TIMELINE_DAYS)): Promise<FleetTimeline> {
  const { from, to } = window;
  const stepMs = Math.max(DAY, Math.ceil((to.getTime() - from.getTime()) / 400 / DAY) * DAY);
  const firstEnd = Math.floor(from.getTime() / DAY) * DAY + DAY;
  // Points from the end of the first day until one step past the window's end.
  const count = Math.max(0, Math.floor((to.getTime() + stepMs - firstEnd) / stepMs) + 1);
  const deltas = await fleetFactDeltas("skew", "status", reach, { firstEnd: new Date(firstEnd), stepMs, count });
  const counts: Record<string, number> = {};
  let inferred = 0;
  const days: FleetTimeline["days"] = [];
  let i = 0;
  for (let step = 0; step < count; step++) {
    for (; i < deltas.length && deltas[i]!.step === step; i++) {
      const { value, delta } = deltas[i]!;
      if (value === null) inferred += delta;
      else counts[value] = (counts[value] ?? 0) + delta;
    }
    const end = firstEnd + step * stepMs;
    days.push({ day: new Date(end - 1).toISOString().slice(0, 10), counts: { ...counts }, inferred });
  }
  return { from: from.toISOString(), to: to.toISOString(), days };
}
