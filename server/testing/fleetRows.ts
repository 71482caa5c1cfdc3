import { getPool } from "../store/db";

/**
 * Many clusters with a summary, written straight into the fleet tables for tests and benchmarks of
 * the fleet view (no credentials: these clusters are never swept).
 */
export type SeededCluster = {
  name: string;
  labels?: Record<string, string>;
  platform?: string | null;
  offline?: boolean;
  version?: string | null;
  skewStatus?: string;
  enforcementMode?: string | null;
  oldestBootImage?: string | null;
  readinessStatus?: string;
  readinessBlocker?: string | null;
  registryLess?: boolean;
  lastSeenAt?: Date;
  /** Its last contact failed ("unreachable"). */
  contactFailed?: boolean;
  /** Registered but never swept: no summary at all. */
  neverSwept?: boolean;
};

export async function seedFleetRows(clusters: SeededCluster[], batch = 1000): Promise<void> {
  for (let i = 0; i < clusters.length; i += batch) {
    const part = clusters.slice(i, i + batch);
    await getPool().query(
      `WITH input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(name text, labels jsonb, platform text, offline boolean, failed boolean)),
            inserted AS (
              INSERT INTO "Cluster" ("id", "name", "displayName", "labels", "platform", "apiUrl", "encryptedCredentials", "offline", "updatedAt", "lastContactStatus", "lastContactAt")
              SELECT gen_random_uuid(), name, name, coalesce(labels, '{}'), platform, 'https://' || name || '.invalid:6443', '\\x00', coalesce(offline, false), now(),
                     CASE WHEN failed THEN 'unreachable'::"ContactStatus" ELSE 'ok'::"ContactStatus" END, now()
                FROM input RETURNING "id", "name")
       SELECT count(*) FROM inserted`,
      [
        JSON.stringify(
          part.map((c) => ({
            name: c.name,
            labels: c.labels ?? {},
            platform: c.platform ?? null,
            offline: c.offline ?? false,
            failed: c.contactFailed ?? false,
          })),
        ),
      ],
    );
    await getPool().query(
      `INSERT INTO "ClusterState" ("clusterId", "snapshot", "factHashes", "observedAt", "lastSeenAt", "version", "skewStatus", "skewSummary",
                                   "enforcementMode", "oldestBootImage", "readinessTarget", "readinessStatus", "readinessBlocker", "registryLess")
       SELECT c."id", CASE WHEN x.registry_less THEN '{"internalReleaseImage":{"releases":[]}}'::jsonb ELSE '{}'::jsonb END, '{}', now(),
              coalesce(x.last_seen, now()), x.version, x.skew, x.skew || ' (seeded)', x.mode, x.oldest, NULL, x.readiness, x.blocker, coalesce(x.registry_less, false)
         FROM jsonb_to_recordset($1::jsonb) AS x(name text, version text, skew text, mode text, oldest text, readiness text, blocker text,
                                                 registry_less boolean, last_seen timestamp)
         JOIN "Cluster" c ON c."name" = x.name`,
      [
        JSON.stringify(
          part
            .filter((c) => !c.neverSwept)
            .map((c) => ({
              name: c.name,
              version: c.version ?? null,
              skew: c.skewStatus ?? "ok",
              mode: c.enforcementMode ?? null,
              oldest: c.oldestBootImage ?? null,
              readiness: c.readinessStatus ?? "pass",
              blocker: c.readinessBlocker ?? null,
              registry_less: c.registryLess ?? false,
              last_seen: c.lastSeenAt ? c.lastSeenAt.toISOString().replace("T", " ").replace("Z", "") : null,
            })),
        ),
      ],
    );
  }
}
