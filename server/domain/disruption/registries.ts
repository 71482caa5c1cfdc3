import { parse } from "smol-toml";
import { z } from "zod";

/** registries.conf (containers-registries.conf v2) could not be judged: the MCO would fail the update. */
export class RegistriesConfError extends Error {
  override name = "RegistriesConfError";
}

/**
 * The fields the safety rule reads (docs/openshift.md §6), typed as the MCO's decoder types them
 * (containers/image sysregistriesv2.V2RegistriesConf, decoded with a typed TOML decoder): a file
 * whose values have other types fails to decode there, so it cannot be judged here either.
 */
const Endpoint = {
  location: z.string().optional(),
  insecure: z.boolean().optional(),
  "pull-from-mirror": z.string().optional(),
};
const MirrorSchema = z.looseObject(Endpoint);
const RegistrySchema = z.looseObject({
  ...Endpoint,
  prefix: z.string().optional(),
  blocked: z.boolean().optional(),
  "mirror-by-digest-only": z.boolean().optional(),
  mirror: z.array(MirrorSchema).optional(),
});
const ConfSchema = z.looseObject({
  "unqualified-search-registries": z.array(z.string()).optional(),
  registry: z.array(RegistrySchema).optional(),
});
type Registry = z.infer<typeof RegistrySchema>;
type Conf = z.infer<typeof ConfSchema>;

/** `registry[2].mirror[0].location` from a zod issue path. */
const fieldOf = (path: PropertyKey[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "document";

const describeValue = (v: unknown) =>
  Array.isArray(v)
    ? "an array"
    : v instanceof Date
      ? "a date"
      : v === null || typeof v !== "object"
        ? `${typeof v} ${JSON.stringify(v)}`
        : "a table";

const expectedOf = (path: PropertyKey[], type: string) => {
  const field = path.at(-1);
  if (type === "array" && field === "unqualified-search-registries") return "an array of strings";
  if (type === "array" && field === "registry") return "an array of tables ([[registry]])";
  if (type === "array" && field === "mirror") return "an array of tables ([[registry.mirror]])";
  if (type === "object") return "a table";
  return type === "boolean" ? "a boolean" : type === "string" ? "a string" : type;
};

function parseConf(text: string | null, which: string): Conf {
  if (text === null || text.trim() === "") return {};
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new RegistriesConfError(
      `the ${which} /etc/containers/registries.conf is not valid TOML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const decoded = ConfSchema.safeParse(raw);
  if (!decoded.success) {
    const issue = decoded.error.issues[0]!;
    let value: unknown = raw;
    for (const key of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
    const expected =
      issue.code === "invalid_type"
        ? ` must be ${expectedOf(issue.path, issue.expected)}, not ${describeValue(value)}`
        : `: ${issue.message}`;
    throw new RegistriesConfError(
      `the ${which} /etc/containers/registries.conf cannot be decoded as the MCO decodes it: ${fieldOf(issue.path)}${expected}`,
    );
  }
  return decoded.data;
}

/**
 * A registry as Go holds it once decoded into sysregistriesv2.Registry: a field the TOML leaves out
 * is its zero value, so `prefix = ""` is the same as no prefix and `blocked = false` as no blocked
 * (the MCO compares the decoded structs, not the text: drain.go `isSafeContainerRegistryConfChanges`).
 */
type GoEndpoint = { location: string; insecure: boolean; "pull-from-mirror": string };
type GoRegistry = GoEndpoint & { prefix: string; blocked: boolean; "mirror-by-digest-only": boolean; mirror: GoEndpoint[] };
const endpointOf = (e: z.infer<typeof MirrorSchema> | Registry): GoEndpoint => ({
  location: e.location ?? "",
  insecure: e.insecure ?? false,
  "pull-from-mirror": e["pull-from-mirror"] ?? "",
});
const goRegistry = (r: Registry): GoRegistry => ({
  ...endpointOf(r),
  prefix: r.prefix ?? "",
  blocked: r.blocked ?? false,
  "mirror-by-digest-only": r["mirror-by-digest-only"] ?? false,
  mirror: (r.mirror ?? []).map(endpointOf),
});

/** The registry's scope: its prefix when not empty, else its location. */
const keyOf = (r: GoRegistry) => r.prefix || r.location;
/** searchRegistryMirror: the first mirror with that location. */
const findMirror = (location: string, mirrors: GoEndpoint[]) => mirrors.find((m) => m.location === location);
const allDigestOnly = (r: GoRegistry) =>
  (r.mirror ?? []).length === 0
    ? r["mirror-by-digest-only"] === true
    : (r.mirror ?? []).every((m) => m["pull-from-mirror"] === "digest-only");

/**
 * isSafeContainerRegistryConfChanges (docs/openshift.md §6): returns null when the change is safe (no drain),
 * else the first reason it is not. A missing file counts as empty; invalid TOML, or TOML whose fields
 * have types the MCO's decoder refuses, throws RegistriesConfError naming the file and the field.
 */
export function registriesChangeUnsafeReason(oldText: string | null, newText: string | null): string | null {
  const before = parseConf(oldText, "old");
  const after = parseConf(newText, "new");
  const oldSearch = before["unqualified-search-registries"] ?? [];
  const newSearch = after["unqualified-search-registries"] ?? [];
  if (oldSearch.some((r, i) => newSearch[i] !== r)) return "unqualified-search-registries lost or reordered an entry";
  const oldRegs = new Map((before.registry ?? []).map((r) => goRegistry(r)).map((r) => [keyOf(r), r]));
  const newRegs = new Map((after.registry ?? []).map((r) => goRegistry(r)).map((r) => [keyOf(r), r]));
  for (const key of oldRegs.keys()) if (!newRegs.has(key)) return `registry ${key} was removed`;
  for (const [key, next] of newRegs) {
    const prev = oldRegs.get(key);
    if (!prev) {
      if (!allDigestOnly(next)) return `new registry ${key} is not digest-only`;
      continue;
    }
    if (JSON.stringify(prev) === JSON.stringify(next)) continue;
    for (const field of ["prefix", "location", "blocked", "insecure"] as const) {
      if (prev[field] !== next[field]) return `registry ${key}: ${field} changed`;
    }
    for (const m of prev.mirror) if (!findMirror(m.location, next.mirror)) return `registry ${key}: mirror ${m.location} was removed`;
    for (const m of next.mirror) {
      const was = findMirror(m.location, prev.mirror);
      if (was && m["pull-from-mirror"] !== was["pull-from-mirror"] && m["pull-from-mirror"] !== "digest-only")
        return `registry ${key}: mirror ${m.location} pull-from-mirror changed to ${m["pull-from-mirror"] || "all"}`;
      if (!was && m["pull-from-mirror"] !== "digest-only" && !next["mirror-by-digest-only"])
        return `registry ${key}: added mirror ${m.location} is not digest-only${m["pull-from-mirror"] === "tag-only" ? " (tag-only mirrors need a drain)" : ""}`;
    }
  }
  return null;
}
