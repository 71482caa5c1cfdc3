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
  /** Secrets kept sealed inside settings (the OpenID client secret set on the admin page). */
  settings: number;
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
      FROM "ClusterPreviewInputs" WHERE "sealed" IS NOT NULL GROUP BY 1
    UNION ALL
    SELECT ${HEADER("encryptedCredentials")} AS header, count(*) AS count, 'hub' AS kind
      FROM "Hub" GROUP BY 1`;
  const total = (kind: string) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + Number(r.count), 0);
  const headers = new Map<string, { header: Buffer; count: number }>();
  for (const r of rows) {
    const header = Buffer.from(r.header);
    const key = header.toString("hex");
    headers.set(key, { header, count: (headers.get(key)?.count ?? 0) + Number(r.count) });
  }
  let settings = 0;
  for (const secret of await sealedSettingSecrets()) {
    settings++;
    // The header as the query above cuts it: version 2 has a 4-byte key id after the version byte.
    const header = secret.sealed.subarray(0, secret.sealed[0] === 2 ? 5 : 1);
    const key = header.toString("hex");
    headers.set(key, { header, count: (headers.get(key)?.count ?? 0) + 1 });
  }
  return { credentials: total("credentials"), previewInputs: total("preview"), settings, headers: [...headers.values()] };
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

/** The settings that hold a sealed secret, and the JSON field it is in (base64). */
const SEALED_SETTING_FIELDS = [{ key: "oidc", field: "clientSecret" }] as const;

/** Every sealed secret kept inside a setting's JSON. */
export async function sealedSettingSecrets(): Promise<{ key: string; field: string; sealed: Buffer }[]> {
  const found: { key: string; field: string; sealed: Buffer }[] = [];
  for (const { key, field } of SEALED_SETTING_FIELDS) {
    const row = await getDb().setting.findUnique({ where: { key } });
    const value = row?.value as Record<string, unknown> | null | undefined;
    const text = value && typeof value === "object" ? value[field] : undefined;
    if (typeof text === "string" && text) found.push({ key, field, sealed: Buffer.from(text, "base64") });
  }
  return found;
}

/** Replaces a setting's sealed secret, only if it is still what was read (no lost update). */
export async function replaceSealedSettingSecret(key: string, field: string, expected: Uint8Array, sealed: Uint8Array): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ value: Record<string, unknown> }[]>`SELECT value FROM "Setting" WHERE key = ${key} FOR UPDATE`;
    if (!row || row.value?.[field] !== Buffer.from(expected).toString("base64")) return false;
    await tx.setting.update({
      where: { key },
      data: { value: { ...row.value, [field]: Buffer.from(sealed).toString("base64") } as Prisma.InputJsonValue },
    });
    return true;
  });
}
