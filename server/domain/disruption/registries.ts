import { parse } from "smol-toml";

/** registries.conf (containers-registries.conf v2) could not be judged: the MCO would fail the update. */
export class RegistriesConfError extends Error {
  override name = "RegistriesConfError";
}

type Mirror = { location?: string; "pull-from-mirror"?: string; insecure?: boolean };
type Registry = {
  prefix?: string;
  location?: string;
  blocked?: boolean;
  insecure?: boolean;
  "mirror-by-digest-only"?: boolean;
  mirror?: Mirror[];
};
type Conf = { "unqualified-search-registries"?: string[]; registry?: Registry[] };

function parseConf(text: string | null, which: string): Conf {
  if (text === null || text.trim() === "") return {};
  try {
    return parse(text) as Conf;
  } catch (error) {
    throw new RegistriesConfError(
      `the ${which} /etc/containers/registries.conf is not valid TOML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
}

const keyOf = (r: Registry) => r.prefix || r.location || "";
const allDigestOnly = (r: Registry) =>
  (r.mirror ?? []).length === 0
    ? r["mirror-by-digest-only"] === true
    : (r.mirror ?? []).every((m) => m["pull-from-mirror"] === "digest-only");

/**
 * isSafeContainerRegistryConfChanges (reference §6): returns null when the change is safe (no drain),
 * else the first reason it is not. A missing file counts as empty; invalid TOML throws.
 */
export function registriesChangeUnsafeReason(oldText: string | null, newText: string | null): string | null {
  const before = parseConf(oldText, "old");
  const after = parseConf(newText, "new");
  const oldSearch = before["unqualified-search-registries"] ?? [];
  const newSearch = after["unqualified-search-registries"] ?? [];
  if (oldSearch.some((r, i) => newSearch[i] !== r)) return "unqualified-search-registries lost or reordered an entry";
  const oldRegs = new Map((before.registry ?? []).map((r) => [keyOf(r), r]));
  const newRegs = new Map((after.registry ?? []).map((r) => [keyOf(r), r]));
  for (const key of oldRegs.keys()) if (!newRegs.has(key)) return `registry ${key} was removed`;
  for (const [key, next] of newRegs) {
    const prev = oldRegs.get(key);
    if (!prev) {
      if (!allDigestOnly(next)) return `new registry ${key} is not digest-only`;
      continue;
    }
    if (JSON.stringify(prev) === JSON.stringify(next)) continue;
    for (const field of ["prefix", "location", "blocked", "insecure"] as const) {
      if ((prev[field] ?? null) !== (next[field] ?? null)) return `registry ${key}: ${field} changed`;
    }
    const nextMirrors = new Map((next.mirror ?? []).map((m) => [m.location, m]));
    for (const m of prev.mirror ?? []) {
      const still = nextMirrors.get(m.location);
      if (!still) return `registry ${key}: mirror ${m.location} was removed`;
      if ((m["pull-from-mirror"] ?? "") !== (still["pull-from-mirror"] ?? "") && still["pull-from-mirror"] !== "digest-only") {
        return `registry ${key}: mirror ${m.location} pull-from-mirror changed to ${still["pull-from-mirror"] ?? "all"}`;
      }
    }
    const oldLocations = new Set((prev.mirror ?? []).map((m) => m.location));
    for (const m of next.mirror ?? []) {
      if (!oldLocations.has(m.location) && m["pull-from-mirror"] !== "digest-only" && next["mirror-by-digest-only"] !== true) {
        return `registry ${key}: added mirror ${m.location} is not digest-only${m["pull-from-mirror"] === "tag-only" ? " (tag-only mirrors need a drain)" : ""}`;
      }
    }
  }
  return null;
}
