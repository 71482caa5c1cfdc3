import { MCO_SKEW_LIMITS, type SkewLimitEntry } from "../domain/skew";
import { compareVersions, compareVersionTexts, parseOcpVersion } from "../domain/versions";
import { UserFacingError } from "../errors";
import { auditActor, type Actor } from "../auth/actor";
import { readSetting, writeSetting } from "../store/settings";
import type { SkewLimitTable } from "./contract";
import { SaveSkewLimitsSchema, SkewLimitEntrySchema, SkewLimitTableSchema } from "./requestContract";

/**
 * The skew limits table: the releases Fleetskew knows (compiled into the MCO, docs/openshift.md §17.1) plus
 * entries an admin adds for releases published after this build. An added entry for a release
 * already in the table replaces it.
 */
const KEY = "skewLimits";
export { SaveSkewLimitsSchema, SkewLimitEntrySchema, SkewLimitTableSchema };
export type { SkewLimitTable };

export function mergeSkewLimits(extra: SkewLimitEntry[]): SkewLimitEntry[] {
  const byRelease = new Map(MCO_SKEW_LIMITS.map((e) => [e.fromRelease, e]));
  for (const e of extra) byRelease.set(e.fromRelease, e);
  return [...byRelease.values()].sort((a, b) => compareVersionTexts(a.fromRelease, b.fromRelease));
}

export async function readExtraSkewLimits(): Promise<SkewLimitEntry[]> {
  const parsed = SkewLimitTableSchema.safeParse(await readSetting(KEY));
  return parsed.success ? parsed.data : [];
}

export async function skewLimitTable(): Promise<SkewLimitTable> {
  const added = await readExtraSkewLimits();
  return { known: MCO_SKEW_LIMITS, added, effective: mergeSkewLimits(added) };
}

/** An admin adds limits for releases published after this build; the MCO's own entries stay as they are. */
export async function saveExtraSkewLimits(entries: SkewLimitEntry[], actor: Actor): Promise<SkewLimitTable> {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.fromRelease)) throw new UserFacingError(400, `${e.fromRelease} is listed twice`);
    seen.add(e.fromRelease);
    // Up to the newest minor Fleetskew knows, the MCO's own limits are the facts; only later releases can be added.
    const release = parseOcpVersion(e.fromRelease)!;
    const newest = MCO_SKEW_LIMITS.map((b) => parseOcpVersion(b.fromRelease)!)
      .sort(compareVersions)
      .at(-1)!;
    if (release.major < newest.major || (release.major === newest.major && release.minor <= newest.minor))
      throw new UserFacingError(
        400,
        `${e.fromRelease} is not after ${newest.major}.${newest.minor}: up to and including ${newest.major}.${newest.minor} the MCO's own limits apply; add releases from ${newest.major}.${newest.minor + 1}.0 on`,
      );
  }
  await writeSetting(KEY, entries, {
    ...auditActor(actor),
    summary: `set the skew limits for ${entries.length ? entries.map((e) => e.fromRelease).join(", ") : "no added releases"}`,
  });
  return skewLimitTable();
}

/** The table for long-running work, refreshed once a minute so an admin's change reaches every process. */
export async function loadSkewLimits(): Promise<{ current: () => SkewLimitEntry[] }> {
  let table = mergeSkewLimits(await readExtraSkewLimits().catch(() => []));
  const timer = setInterval(() => {
    readExtraSkewLimits()
      .then((extra) => (table = mergeSkewLimits(extra)))
      .catch(() => undefined);
  }, 60_000);
  timer.unref();
  return { current: () => table };
}
