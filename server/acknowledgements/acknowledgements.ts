import { auditActor, type Actor } from "../auth/actor";
import { requireOverCluster } from "../auth/clusterAuthority";
import { FLEET_WIDE, reachOf, readReach, type Reach } from "../domain/grants";
import { clustersInReach } from "../store/reach";
import { auditedClusterWrite, clusterAnswer, withClusterClient } from "../clusters/access";
import {
  ACK_TTL_MS,
  acknowledgementNeed,
  describeSpec,
  predictUpgradeable,
  sameSpec,
  specOf,
  type AcknowledgementRequest,
  type EnforcementSpecValue,
} from "../domain/acknowledgements";
import { UPGRADEABLE_SKEW_REASON } from "../domain/skew";
import type { ClusterSnapshot } from "../domain/snapshot";
import { noSuchCluster, UserFacingError } from "../errors";
import { skewLimits } from "../fleet/fleet";
import { readMachineConfigOperator, readMachineConfiguration } from "../kube/readers";
import { setBootImageSkewEnforcement } from "../kube/writers";
import {
  changeAcknowledgement,
  expireAcknowledgements,
  findAcknowledgement,
  insertAcknowledgement,
  listAcknowledgements,
  type AckStatus,
  type AcknowledgementRecord,
  type NewAcknowledgement,
} from "../store/acknowledgements";
import type { AuditInput } from "../store/audit";
import { findClusterSummary } from "../store/clusters";
import { listSnapshots } from "../store/fleet";
import { findClusterState } from "../store/history";
import { makeDue } from "../store/sweeps";
import type { AcknowledgementView, Candidate } from "./contract";

export type { AcknowledgementView, Candidate };

/**
 * Manual boot-image acknowledgements, end to end: which clusters need one, the request, the
 * decision by someone else, the conditional write to the cluster, and checking that the MCO took it.
 */
/**
 * Clusters that need an acknowledgement, now or at `target` (a release, checked by
 * AckCandidatesQuery; default: the next one that enforces).
 */
export async function acknowledgementCandidates(target: string | null = null, reach: Reach = FLEET_WIDE): Promise<Candidate[]> {
  const limits = await skewLimits();
  const pending = new Map((await listAcknowledgements({ statuses: ["pending", "applying"] })).map((a) => [a.clusterId, a]));
  const out: Candidate[] = [];
  for (let after: string | undefined, page; (page = await listSnapshots({ after, limit: 500, concerning: target === null })).length;) {
    after = page.at(-1)!.name;
    for (const row of page) {
      if (row.offline || !row.snapshot) continue;
      const need = acknowledgementNeed(row.snapshot, limits, target);
      if (!need) continue;
      const p = pending.get(row.id);
      out.push({
        ...need,
        cluster: row.name,
        version: row.snapshot.version?.current ?? null,
        served: !!row.snapshot.enforcement?.served,
        pending: p ? { id: p.id, requestedBy: p.requestedBy } : null,
        machineSets: row.snapshot.machineSets.map((m) => ({ name: m.machineSet, bootImage: m.ocpVersion ?? m.rhcosBuild })),
      });
    }
  }
  if (reach.kind === "fleet") return out;
  // Only the clusters the reader reads, as the store's reach condition decides.
  const seen = new Set(
    (
      await clustersInReach(
        out.map((c) => c.cluster),
        reach,
      )
    ).map((c) => c.name),
  );
  return out.filter((c) => seen.has(c.cluster));
}

export async function liveClusterWithSnapshot(name: string): Promise<{ id: string; name: string; snapshot: ClusterSnapshot }> {
  const cluster = await findClusterSummary(name);
  if (!cluster) throw noSuchCluster(name);
  if (cluster.offline) throw new UserFacingError(409, `${name} is an offline import; Fleetskew cannot write to it`);
  const state = await findClusterState(cluster.id);
  if (!state?.snapshot)
    throw new UserFacingError(409, `${name} has not been read yet; wait for its first sweep (a few seconds after registering)`);
  return { id: cluster.id, name: cluster.name, snapshot: state.snapshot };
}

/** spec.bootImageSkewEnforcement as the cluster has it now; the last sweep's value when it cannot be read. */
export async function currentSpec(cluster: string, snapshot: ClusterSnapshot): Promise<EnforcementSpecValue | null> {
  try {
    const mc = await withClusterClient(cluster, (client) => readMachineConfiguration(client));
    if (mc.status === "ok")
      return ((mc.value.spec ?? {}) as { bootImageSkewEnforcement?: EnforcementSpecValue }).bootImageSkewEnforcement ?? null;
  } catch {
    /* fall back to the snapshot */
  }
  return snapshot.enforcement?.spec ?? null;
}

/** A technician or admin asks for an acknowledgement; nothing is sent to the cluster yet. */
type AcknowledgementInput = Omit<AcknowledgementRequest, "cluster">;

/** What an acknowledgement records: the value in the field its mode names, the evidence, who asked. */
export function acknowledgedValue(input: AcknowledgementInput): string {
  return input.mode === "OCPVersion" ? input.ocpVersion! : input.mode === "RHCOSVersion" ? input.rhcosVersion! : "None";
}

/** The row of a new request for one cluster, as a person or a rollout asks for it. */
export function newAcknowledgement(
  clusterId: string,
  input: AcknowledgementInput,
  requester: { id: string; username: string },
  baseline: EnforcementSpecValue | null,
): NewAcknowledgement {
  return {
    clusterId,
    mode: input.mode,
    ocpVersion: input.mode === "OCPVersion" ? input.ocpVersion! : null,
    rhcosVersion: input.mode === "RHCOSVersion" ? input.rhcosVersion! : null,
    evidence: input.evidence,
    machineSets: input.machineSets ?? [],
    requestedById: requester.id,
    requestedBy: requester.username,
    expiresAt: new Date(Date.now() + ACK_TTL_MS),
    baseline,
  };
}

export async function requestAcknowledgement(input: AcknowledgementRequest, actor: Actor): Promise<AcknowledgementRecord> {
  // Requesting takes a technician over the cluster; one the person cannot read does not exist for them.
  const grant = await requireOverCluster(actor, ["technician"], input.cluster, noSuchCluster(input.cluster).message);
  const cluster = await liveClusterWithSnapshot(input.cluster);
  const s = cluster.snapshot;
  if (!s.enforcement?.served)
    throw new UserFacingError(
      409,
      `${cluster.name} runs ${s.version?.current ?? "an OpenShift version"} whose API has no spec.bootImageSkewEnforcement (served by default from 4.22, before that only with a TechPreview feature set); there is nothing to acknowledge until the cluster is updated`,
    );
  const known = new Set(s.machineSets.map((m) => m.machineSet));
  const unknown = (input.machineSets ?? []).filter((m) => !known.has(m));
  if (unknown.length) throw new UserFacingError(400, `${cluster.name} has no MachineSet named ${unknown.join(", ")}`);
  const open = (await listAcknowledgements({ clusterId: cluster.id, statuses: ["pending", "applying"] }))[0];
  if (open)
    throw new UserFacingError(
      409,
      `A request for ${cluster.name} by ${open.requestedBy} is already ${open.status}; decide or let it expire first`,
    );
  const value = acknowledgedValue(input);
  return insertAcknowledgement(
    newAcknowledgement(cluster.id, input, { id: actor.user.id, username: actor.user.username }, await currentSpec(cluster.name, s)),
    {
      ...auditActor(actor),
      action: "acknowledgement.request",
      targetType: "cluster",
      targetId: cluster.name,
      summary:
        input.mode === "None"
          ? `asked to turn boot-image skew enforcement off on ${cluster.name}`
          : `asked to acknowledge boot image ${value} on ${cluster.name}`,
      details: { mode: input.mode, value, machineSets: input.machineSets ?? [], grant },
    },
  );
}

/** Takes the decision under a row lock: never by the requester, only while pending and not expired. */
function decide(id: string, actor: Actor, decision: "approve" | "reject", comment: string, grant: string) {
  return changeAcknowledgement(id, (current) => {
    if (current.requestedById === actor.user.id)
      throw new UserFacingError(403, `You requested this acknowledgement; someone else with the approver role must ${decision} it`);
    if (current.status !== "pending") throw new UserFacingError(409, `This request is no longer pending: it is ${current.status}`);
    if (new Date(current.expiresAt) < new Date())
      throw new UserFacingError(409, "This request expired (7 days without a decision); ask for a new one");
    if (decision === "reject" && comment.length < 3)
      throw new UserFacingError(400, "Say why you reject it (a comment of at least 3 characters)");
    return {
      change: {
        status: decision === "approve" ? "applying" : "rejected",
        decidedBy: actor.user.username,
        decidedAt: new Date(),
        comment: comment || null,
      },
      audit: {
        ...auditActor(actor),
        action: `acknowledgement.${decision}`,
        targetType: "cluster",
        targetId: current.cluster,
        summary: `${decision === "approve" ? "approved" : "rejected"} ${current.requestedBy}'s acknowledgement request for ${current.cluster}${comment ? `: ${comment}` : ""}`,
        details: { request: current.id, comment, grant },
      },
    };
  });
}

async function recordOrThrow(id: string): Promise<AcknowledgementRecord> {
  const record = await findAcknowledgement(id);
  if (!record) throw new UserFacingError(404, `no acknowledgement request ${id}`);
  return record;
}

/**
 * Deciding takes an approver over the request's cluster: a request about a cluster the person does
 * not read is missing (404), one they read but do not approve for is refused naming their scope.
 */
async function decidable(id: string, actor: Actor): Promise<string> {
  const record = await recordOrThrow(id);
  return requireOverCluster(actor, ["approver"], record.cluster, `no acknowledgement request ${id}`);
}

export async function rejectAcknowledgement(id: string, comment: string, actor: Actor): Promise<AcknowledgementRecord> {
  const grant = await decidable(id, actor);
  return (await decide(id, actor, "reject", comment, grant))!;
}

/**
 * Approves, then merge-patches spec.bootImageSkewEnforcement on condition that the cluster still
 * has the value seen at request time (a 409 is read again and checked, never overwritten), then
 * waits briefly for the MCO to mirror it into status.
 */
export async function approveAcknowledgement(id: string, comment: string, actor: Actor): Promise<AcknowledgementRecord> {
  const grant = await decidable(id, actor);
  const approved = (await decide(id, actor, "approve", comment, grant))!;
  const written = await writeAcknowledgement(approved, auditActor(actor, grant));
  if (written.status !== "applied") return written;
  for (let attempt = 0; attempt < 8; attempt++) {
    // A degraded pool or an interrupted build hides the answer until it is resolved: the follower checks again then.
    if ((await checkAcknowledgement(id)) !== "waiting") break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return recordOrThrow(id);
}

/**
 * Writes an approved acknowledgement to its cluster (refusing when the cluster's value changed since
 * the request was made): applied, or failed in the cluster's words. The follower then checks that
 * the MCO took it. Also how a rollout writes the acknowledgement it carries, once per cluster.
 */
export async function writeAcknowledgement(
  approved: AcknowledgementRecord,
  who: Pick<AuditInput, "actor" | "role" | "ip">,
): Promise<AcknowledgementRecord> {
  const id = approved.id;
  const spec = specOf(approved);
  let written: "patched" | "unchanged";
  try {
    written = await withClusterClient(approved.cluster, async (client) => {
      const { result } = await auditedClusterWrite(
        who,
        approved.cluster,
        {
          object: "MachineConfiguration cluster",
          change: `set spec.bootImageSkewEnforcement to ${describeSpec(spec)}`,
          details: { request: id },
        },
        () => setBootImageSkewEnforcement(client, spec, { baseline: (approved.baseline ?? null) as EnforcementSpecValue | null }),
        (r) => (r.result === "patched" ? "written" : "the cluster already had this value"),
      );
      return result;
    });
  } catch (error) {
    await changeAcknowledgement(id, () => ({
      change: { status: "failed", result: `The cluster did not take it: ${clusterAnswer(error)}` },
    }));
    return recordOrThrow(id);
  }
  await markApplied(id, spec, written === "patched" ? "Written to" : "Already in");
  return recordOrThrow(id);
}

function markApplied(id: string, spec: ReturnType<typeof specOf>, how: string) {
  return changeAcknowledgement(id, () => ({
    change: {
      status: "applied",
      appliedAt: new Date(),
      result: `${how} MachineConfiguration cluster spec.bootImageSkewEnforcement (${describeSpec(spec)}); waiting for the MCO to mirror it into status.`,
    },
  }));
}

/** How long an approval may stay between the decision and the cluster's answer before it counts as interrupted. */
const INTERRUPTED_AFTER_MS = 2 * 60_000;

/**
 * An approval whose process stopped between the decision and the cluster's answer: when the cluster
 * has the value, it was written; otherwise it is marked failed, saying what the cluster has, rather
 * than written later with nobody watching.
 */
async function settleInterrupted(ack: AcknowledgementRecord): Promise<void> {
  const spec = specOf(ack);
  const now = await withClusterClient(ack.cluster, async (client) => {
    const mc = await readMachineConfiguration(client);
    if (mc.status !== "ok") return undefined;
    return ((mc.value.spec ?? {}) as { bootImageSkewEnforcement?: EnforcementSpecValue }).bootImageSkewEnforcement ?? null;
  });
  if (now === undefined) return; // cannot tell yet
  if (sameSpec(now, spec)) {
    await markApplied(ack.id, spec, "Found in");
    return;
  }
  await changeAcknowledgement(ack.id, (current) =>
    current.status !== "applying"
      ? { change: {} }
      : {
          change: {
            status: "failed",
            result: `Fleetskew stopped before the cluster answered; the cluster has ${describeSpec(now)}. Request it again if it is still needed.`,
          },
        },
  );
}

/** Reasons with which machine-config reports Upgradeable=False over any boot-image block (docs/openshift.md §17.3, §20.2). */
const OVERRIDING_REASONS = new Set(["DegradedPool", "InterruptedBuild"]);

type Verification =
  /** Verified, or nothing left to verify. */
  | "done"
  /** Not yet: status not mirrored, the operator not caught up, or something could not be read. */
  | "waiting"
  /** Upgradeable=False for a degraded pool or an interrupted build, which hides whether boot images block. */
  | "hidden";

/** The first sentence of an applied request's result: what was written (or found), without what came of it since. */
const writtenPart = (result: string | null) =>
  (result ?? "Written to MachineConfiguration cluster spec.bootImageSkewEnforcement")
    .split(/; (?:waiting for|the MCO mirrored it)/)[0]!
    .replace(/\.$/, "");

function interim(id: string, result: (current: AcknowledgementRecord) => string) {
  return changeAcknowledgement(id, (current) => {
    const next = result(current);
    return { change: current.verifiedAt || current.result === next ? {} : { result: next } };
  });
}

/**
 * Checks that the MCO mirrored an applied acknowledgement into status and that machine-config's
 * Upgradeable follows it. Upgradeable=False for a degraded pool or an interrupted build overrides
 * the boot-image reason, so it shows nothing either way: the request says so and stays unverified.
 */
async function checkAcknowledgement(id: string): Promise<Verification> {
  const ack = await findAcknowledgement(id);
  if (!ack || ack.status !== "applied" || ack.verifiedAt) return "done";
  const spec = specOf(ack);
  const [mc, co] = await withClusterClient(ack.cluster, (client) =>
    Promise.all([readMachineConfiguration(client), readMachineConfigOperator(client)]),
  );
  if (mc.status !== "ok") return "waiting";
  const status =
    ((mc.value.status ?? {}) as { bootImageSkewEnforcementStatus?: EnforcementSpecValue }).bootImageSkewEnforcementStatus ?? null;
  if (!sameSpec(status, spec)) return "waiting";
  // Without machine-config's conditions, whether Upgradeable followed is not known: not verified yet.
  if (co.status !== "ok") return "waiting";
  const upgradeable = (co.value.status?.conditions ?? []).find((c) => c.type === "Upgradeable");
  const mirrored = "the MCO mirrored it into status.bootImageSkewEnforcementStatus";
  if (upgradeable?.status === "False" && OVERRIDING_REASONS.has(upgradeable.reason ?? "")) {
    const what = upgradeable.reason === "DegradedPool" ? "the pool is healthy" : "the pool's build is no longer interrupted";
    await interim(
      id,
      (current) =>
        `${writtenPart(current.result)}; ${mirrored}, but machine-config reports Upgradeable=False (${upgradeable.reason}), which hides any boot-image block; checked again once ${what}.`,
    );
    return "hidden";
  }
  const skewBlock = upgradeable?.status === "False" && upgradeable.reason === UPGRADEABLE_SKEW_REASON;
  const state = await findClusterState(ack.clusterId);
  const release = state?.snapshot?.version?.current ?? null;
  const predicted = predictUpgradeable(ack, release, await skewLimits());
  if (predicted.upgradeable === skewBlock) {
    // The operator has not caught up yet: say what is awaited rather than leave the request silent.
    await interim(
      id,
      (current) =>
        `${writtenPart(current.result)}; ${mirrored}; waiting for machine-config's Upgradeable to follow: it reports ${upgradeableWords(upgradeable)}, expected ${
          predicted.upgradeable ? "no boot-image block" : `Upgradeable=False (${UPGRADEABLE_SKEW_REASON})`
        }.`,
    );
    return "waiting";
  }
  await changeAcknowledgement(id, (current) => ({
    change: {
      verifiedAt: new Date(),
      result: `${writtenPart(current.result)}. The MCO mirrored it into status.bootImageSkewEnforcementStatus and machine-config reports ${upgradeableWords(
        upgradeable,
      )}.`,
    },
  }));
  // The sweep the write asked for may have read the cluster before machine-config's Upgradeable
  // followed; one more shows the fleet what was just verified.
  await makeDue(ack.cluster).catch(() => undefined);
  return "done";
}

/** What machine-config's Upgradeable says, as it is: a block for another reason is not "no block". */
function upgradeableWords(c: { status: string; reason?: string | null; message?: string | null } | undefined): string {
  if (!c) return "no boot-image block (it has no Upgradeable condition)";
  if (c.status === "False" && c.reason === UPGRADEABLE_SKEW_REASON) return `Upgradeable=False (${UPGRADEABLE_SKEW_REASON})`;
  if (c.status === "True") return "no boot-image block (Upgradeable=True)";
  const why = [c.reason, c.message].filter(Boolean).join(": ");
  return `no boot-image block, but Upgradeable=${c.status} for another reason${why ? ` (${why})` : ""}`;
}

/** The requests about clusters the reader reads (every request without a reader). */
export async function listAcknowledgementViews(statuses?: AckStatus[], actor: Actor | null = null): Promise<AcknowledgementView[]> {
  return viewsOf(await listAcknowledgements({ statuses, reach: actor ? readReach(actor.held) : FLEET_WIDE }), actor);
}

/** One request as the API answers it: with the cluster's release and what Upgradeable will do (a None request's warning). */
export async function acknowledgementView(record: AcknowledgementRecord, actor: Actor | null = null): Promise<AcknowledgementView> {
  return (await viewsOf([record], actor))[0]!;
}

async function viewsOf(records: AcknowledgementRecord[], actor: Actor | null = null): Promise<AcknowledgementView[]> {
  const limits = await skewLimits();
  // Where the reader approves, by the store's reach condition: the page offers a decision only there.
  const approves = actor
    ? new Set((await clustersInReach([...new Set(records.map((r) => r.cluster))], reachOf(actor.held, ["approver"]))).map((c) => c.name))
    : null;
  const releases = new Map<string, string | null>();
  for (const r of records)
    if (!releases.has(r.clusterId)) releases.set(r.clusterId, (await findClusterState(r.clusterId))?.snapshot?.version?.current ?? null);
  return records.map((r) => ({
    ...r,
    baseline: (r.baseline ?? null) as AcknowledgementView["baseline"],
    release: releases.get(r.clusterId) ?? null,
    prediction: predictUpgradeable(r, releases.get(r.clusterId) ?? null, limits),
    mayDecide: (!approves || approves.has(r.cluster)) && (!actor || (actor.user.id !== r.requestedById && !actor.token)),
  }));
}

const NOT_CONFIRMED = "Not confirmed:";
/** Set by checkAcknowledgement while a degraded pool or an interrupted build hides the answer. */
const hiddenNow = (result: string | null) => !!result?.includes("which hides any boot-image block");

/**
 * Background: expire old requests, and verify applied ones the MCO had not mirrored (or whose
 * Upgradeable had not followed) yet, for up to an hour; one whose answer a degraded pool or an
 * interrupted build hides is checked again for as long as that lasts.
 */
export async function followAcknowledgements(now = new Date()): Promise<void> {
  await expireAcknowledgements(now);
  for (const ack of await listAcknowledgements({ statuses: ["applying"] }))
    if (ack.decidedAt && now.getTime() - new Date(ack.decidedAt).getTime() > INTERRUPTED_AFTER_MS)
      await settleInterrupted(ack).catch(() => undefined);
  for (const ack of await listAcknowledgements({ statuses: ["applied"] })) {
    if (ack.verifiedAt || !ack.appliedAt) continue;
    if (now.getTime() - new Date(ack.appliedAt).getTime() > 3_600_000 && !hiddenNow(ack.result)) {
      if (!ack.result?.includes(NOT_CONFIRMED))
        await changeAcknowledgement(ack.id, (current) => ({
          change: {
            result: `${current.result ?? ""} ${NOT_CONFIRMED} ${
              current.result?.includes("the MCO mirrored it")
                ? "machine-config's Upgradeable had not followed the value an hour after it was written"
                : "the MCO had not mirrored the value an hour after it was written"
            }; check the machine-config operator.`,
          },
        }));
      continue;
    }
    await checkAcknowledgement(ack.id).catch(() => "waiting");
  }
}
