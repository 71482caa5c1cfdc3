import { getDb } from "./db";
import { Prisma } from "./generated/prisma/client";

/**
 * What is sealed at rest, for the start's key check and `npm run keys:reseal`: cluster credentials
 * (offline imports have none) and the kept preview inputs. Envelopes are opaque here; server/secrets
 * reads them.
 */
export type SealedSummary = {
  credentials: number;
  previewInputs: number;
  /** Envelope header (version byte and, from version 2, the key id) → how many carry it. */
  headers: { header: Buffer; count: number }[];
};

/** The envelope's version byte, and its key id from version 2 on (version 1 has a random IV there). */
const HEADER = (column: string) =>
  Prisma.raw(
    `CASE WHEN get_byte("${column}", 0) = 2 THEN substring("${column}" from 1 for 5) ELSE substring("${column}" from 1 for 1) END`,
  );

export async function sealedSummary(): Promise<SealedSummary> {
  const db = getDb();
  const rows = await db.$queryRaw<{ header: Uint8Array; count: bigint; kind: string }[]>`
    SELECT ${HEADER("encryptedCredentials")} AS header, count(*) AS count, 'credentials' AS kind
      FROM "Cluster" WHERE length("encryptedCredentials") > 0 GROUP BY 1
    UNION ALL
    SELECT ${HEADER("sealed")} AS header, count(*) AS count, 'preview' AS kind
      FROM "ClusterPreviewInputs" WHERE "sealed" IS NOT NULL GROUP BY 1`;
  const total = (kind: string) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + Number(r.count), 0);
  const headers = new Map<string, { header: Buffer; count: number }>();
  for (const r of rows) {
    const header = Buffer.from(r.header);
    const key = header.toString("hex");
    headers.set(key, { header, count: (headers.get(key)?.count ?? 0) + Number(r.count) });
  }
  return { credentials: total("credentials"), previewInputs: total("preview"), headers: [...headers.values()] };
}

/** One cluster's sealed credentials whose envelope starts with `header` (to try opening it). */
export async function sampleCredentials(header: Uint8Array): Promise<{ name: string; sealed: Buffer } | null> {
  const [row] = await getDb().$queryRaw<{ name: string; sealed: Uint8Array }[]>`
    SELECT "name", "encryptedCredentials" AS sealed FROM "Cluster"
    WHERE length("encryptedCredentials") > 0 AND substring("encryptedCredentials" from 1 for ${header.length}) = ${Buffer.from(header)}
    LIMIT 1`;
  return row ? { name: row.name, sealed: Buffer.from(row.sealed) } : null;
}

/** Every cluster's sealed credentials, a page at a time by name. */
export async function listSealedCredentials(after: string | null, limit = 100): Promise<{ name: string; sealed: Buffer }[]> {
  const rows = await getDb().cluster.findMany({
    where: { offline: false, ...(after ? { name: { gt: after } } : {}) },
    select: { name: true, encryptedCredentials: true },
    orderBy: { name: "asc" },
    take: limit,
  });
  return rows.filter((r) => r.encryptedCredentials.length > 0).map((r) => ({ name: r.name, sealed: Buffer.from(r.encryptedCredentials) }));
}

/** Replaces one cluster's sealed credentials, only if they are still what was read (no lost update). */
export async function replaceSealedCredentials(name: string, expected: Uint8Array, sealed: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const { count } = await getDb().cluster.updateMany({
    where: { name, encryptedCredentials: { equals: Buffer.from(expected) } },
    data: { encryptedCredentials: sealed },
  });
  return count > 0;
}
