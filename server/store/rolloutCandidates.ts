/**
 * The facts a plan is judged from, for every cluster it may take: read in one query over the fleet,
 * apart from the rollouts' own rows, since its cost is the fleet's and its shape the eligibility
 * checks' (server/domain/rollouts/eligibility.ts).
 */
import type { CandidateFacts } from "../domain/rollouts/eligibility";
import type { UpdateGateParts } from "../domain/readiness";
import type { Reach } from "../domain/grants";
import { adder, reachSql } from "./scope";
import { OFFLINE, queryText, staleWhen, storedTime } from "./fleet";
import { where, type FleetFilter } from "./fleetWindow";
import { ACTIVE_STATUSES } from "./rolloutRecords";
import { updateGatePartsDecoder } from "./updateGateParts";

/**
 * What decides whether each selected cluster may enter a rollout, read in one query: the fleet
 * row's summary, the update lists of its ClusterVersion, the parts of its snapshot the update gates
 * read (to judge them for the plan's target) and whether another rollout holds it.
 * `names` chooses clusters by name within `reach`; otherwise the fleet view's filter does (and its reach).
 */
export async function candidateFacts(
  selection: { filter: FleetFilter } | { names: string[]; reach: Reach },
  staleBefore: Date,
): Promise<CandidateFacts[]> {
  const values: unknown[] = [storedTime(staleBefore)];
  const condition =
    "names" in selection
      ? `WHERE k."name" = ANY($${values.push(selection.names)}::text[]) AND ${reachSql(selection.reach, adder(values), "k")}`
      : where(selection.filter, values, staleBefore);
  const active = `$${values.push(ACTIVE_STATUSES)}::text[]`;
  // The snapshot's parts a plan reads were cut out when it was written ("planParts", migration
  // 20261129090000_plan_parts), so this reads a few hundred bytes per cluster, never a snapshot. The
  // gates' parts, the largest, are the same for every cluster of one release and state: each distinct
  // one (by planGatesKey) comes once, on the first of its clusters, all in one statement so that
  // every row is read as of the same moment.
  const rows = await queryText(
    `WITH picked AS MATERIALIZED (
       SELECT k."name", c."labels", ${OFFLINE} AS offline, ${staleWhen("$1")} AS stale, c."lastContactError", s."version",
              s."readinessTarget", coalesce(s."readinessStatus", 'unknown') AS readiness, s."readinessBlocker",
              p."availableUpdates", p."conditionalUpdates", coalesce(p."acknowledgementServed", false) AS served,
              held."number"::text AS held, s."clusterId" AS state, s."planGatesKey" AS gates
         FROM "FleetIndex" k JOIN "Cluster" c ON c."id" = k."clusterId" LEFT JOIN "ClusterState" s ON s."clusterId" = k."clusterId"
         -- Each part taken out once: every -> on the column would decompress it again.
         LEFT JOIN LATERAL jsonb_to_record(s."planParts")
           AS p("availableUpdates" jsonb, "conditionalUpdates" jsonb, "acknowledgementServed" boolean) ON true
         -- The rollout already holding each cluster, from one pass over the active rollouts' rows.
         LEFT JOIN (SELECT rc."clusterName", min(r."number") AS "number" FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
                     WHERE rc."state" <> 'excluded' AND r."status" = ANY(${active}) GROUP BY rc."clusterName") held ON held."clusterName" = k."name"
         ${condition}),
     firsts AS (SELECT DISTINCT ON (gates) gates, state FROM picked WHERE gates IS NOT NULL ORDER BY gates, state)
     SELECT picked."name", picked."labels", picked.offline, picked.stale, picked."lastContactError", picked."version",
            picked."readinessTarget", picked.readiness, picked."readinessBlocker", picked."availableUpdates",
            picked."conditionalUpdates", picked.served, picked.held, picked.gates,
            (SELECT g."planParts"->'gates' FROM "ClusterState" g WHERE g."clusterId" = firsts.state)
       FROM picked LEFT JOIN firsts ON firsts.state = picked.state
      ORDER BY picked."name"`,
    values,
  );
  const decodeGates = updateGatePartsDecoder();
  const gatesByKey = new Map<string, UpdateGateParts>();
  for (const r of rows) if (r[13] && r[14]) gatesByKey.set(r[13], decodeGates(r[14]));
  // Clusters of one release share their update lists too: each distinct text is read once (read-only).
  const availableOf = memoByText((text) => (JSON.parse(text) as unknown[]).filter((v): v is string => typeof v === "string"));
  const conditionalOf = memoByText((text) =>
    (JSON.parse(text) as { version: string | null; risks: { name: string | null }[] }[])
      .filter((u) => typeof u.version === "string")
      .map((u) => ({ version: u.version!, risks: u.risks.filter((k) => typeof k.name === "string").map((k) => ({ name: k.name! })) })),
  );
  return rows.map((r) => ({
    name: r[0]!,
    labels: JSON.parse(r[1] ?? "{}") as Record<string, string>,
    offline: r[2] === "t",
    stale: r[3] === "t",
    lastContactError: r[4] ?? null,
    version: r[5] ?? null,
    readinessTarget: r[6] ?? null,
    readinessStatus: r[7]!,
    readinessBlocker: r[8] ?? null,
    availableUpdates: availableOf(r[9] ?? "[]"),
    conditionalUpdates: conditionalOf(r[10] ?? "[]"),
    acknowledgementServed: r[11] === "t",
    activeRollout: r[12] ?? null,
    gates: (r[13] ? gatesByKey.get(r[13]) : undefined) ?? decodeGates(null),
  }));
}

/** `parse`, once per distinct text: its answers are shared, so they must be read, never changed. */
function memoByText<T>(parse: (text: string) => T): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    let value = seen.get(text);
    if (value === undefined) seen.set(text, (value = parse(text)));
    return value;
  };
}

/**
 * How many clusters the selection takes within `read` (what the planner may see) that are outside
 * `write` (where they may plan): counted, so a plan can say some were left out without naming them.
 */
export async function candidatesOutside(selection: { filter: FleetFilter }, read: Reach, write: Reach, staleBefore: Date): Promise<number> {
  if (write.kind === "fleet") return 0;
  const values: unknown[] = [];
  const condition = where({ ...selection.filter, reach: read }, values, staleBefore);
  const [row] = await queryText(
    `SELECT count(*) FROM "FleetIndex" k LEFT JOIN "ClusterState" s ON s."clusterId" = k."clusterId" ${condition || "WHERE TRUE"} AND NOT ${reachSql(write, adder(values), "k")}`,
    values,
  );
  return Number(row?.[0] ?? 0);
}
