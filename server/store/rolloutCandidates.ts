/**
 * The facts a plan is judged from, for every cluster it may take: read in one query over the fleet,
 * apart from the rollouts' own rows, since its cost is the fleet's and its shape the eligibility
 * checks' (server/domain/rollouts/eligibility.ts).
 */
import type { CandidateFacts } from "../domain/rollouts/eligibility";
import type { Reach } from "../domain/grants";
import { adder, reachSql } from "./scope";
import { OFFLINE, queryText, staleWhen, storedTime } from "./fleet";
import { where, type FleetFilter } from "./fleetWindow";
import { ACTIVE_STATUSES } from "./rolloutRecords";
import { UPDATE_GATE_KEYS, updateGatePartsDecoder, updateGatePartsSql } from "./updateGateParts";

const asArray = (expr: string) => `CASE WHEN jsonb_typeof(${expr}) = 'array' THEN ${expr} ELSE '[]'::jsonb END`;

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
      ? `WHERE c."name" = ANY($${values.push(selection.names)}::text[]) AND ${reachSql(selection.reach, adder(values))}`
      : where(selection.filter, values, staleBefore);
  const active = `$${values.push(ACTIVE_STATUSES)}::text[]`;
  const version = `snap.version`;
  const rows = await queryText(
    `SELECT c."name", c."labels", ${OFFLINE}, ${staleWhen("$1")}, c."lastContactError", s."version",
            s."readinessTarget", coalesce(s."readinessStatus", 'unknown'), s."readinessBlocker",
            ${asArray(`${version}->'availableUpdates'`)},
            (SELECT coalesce(jsonb_agg(jsonb_build_object('version', u->>'version', 'risks',
                      (SELECT coalesce(jsonb_agg(jsonb_build_object('name', r->>'name')), '[]'::jsonb)
                         FROM jsonb_array_elements(${asArray(`u->'risks'`)}) r))), '[]'::jsonb)
               FROM jsonb_array_elements(${asArray(`${version}->'conditionalUpdates'`)}) u),
            coalesce(snap.enforcement->>'served' = 'true', false),
            (SELECT r."number"::text FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
              WHERE rc."clusterName" = c."name" AND rc."state" <> 'excluded' AND r."status" = ANY(${active}) LIMIT 1),
            ${updateGatePartsSql("snap")}
       FROM "Cluster" c JOIN "FleetIndex" k ON k."clusterId" = c."id" LEFT JOIN "ClusterState" s ON s."clusterId" = c."id"
       -- Each key taken out of the snapshot once: every -> on the column itself would read the whole snapshot again.
       LEFT JOIN LATERAL jsonb_to_record(CASE WHEN jsonb_typeof(s."snapshot") = 'object' THEN s."snapshot" END)
         AS snap(enforcement jsonb, ${UPDATE_GATE_KEYS}) ON true
       ${condition}
      ORDER BY c."name"`,
    values,
  );
  const gatesOf = updateGatePartsDecoder();
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
    availableUpdates: (JSON.parse(r[9] ?? "[]") as unknown[]).filter((v): v is string => typeof v === "string"),
    conditionalUpdates: (JSON.parse(r[10] ?? "[]") as { version: string | null; risks: { name: string | null }[] }[])
      .filter((u) => typeof u.version === "string")
      .map((u) => ({ version: u.version!, risks: u.risks.filter((k) => typeof k.name === "string").map((k) => ({ name: k.name! })) })),
    acknowledgementServed: r[11] === "t",
    activeRollout: r[12] ?? null,
    gates: gatesOf(r[13]),
  }));
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
