import release422 from "../../data/mco/allowed-amis-release-4.22.json";
import type { McoRelease } from "./mcoRelease";

/**
 * The AMIs an MCO release line's boot image controller may replace, as it compiles them in
 * (`AllowedAMIs`, pkg/controller/bootimage/ami.go: every RHCOS AMI the installer's rhcos.json ever
 * published). Kept as data with the commit it was read from (scripts/extract-allowed-amis.mjs);
 * docs/openshift.md §15.4 and §25. Only release-4.22 decides by this list: later lines ask EC2.
 */
export type AllowedAmiList = {
  release: McoRelease;
  source: { repository: string; branch: string; commit: string; path: string; fileCommit: string };
  count: number;
  has(ami: string): boolean;
  /** How a prediction names the list, e.g. "release-4.22's AllowedAMIs (ami.go at 9027c94cde45, 9,573 AMIs)". */
  label: string;
};

function listOf(release: McoRelease, data: { source: AllowedAmiList["source"]; amis: string[] }): AllowedAmiList {
  const set = new Set(data.amis);
  return {
    release,
    source: data.source,
    count: set.size,
    has: (ami) => set.has(ami),
    label: `${data.source.branch}'s AllowedAMIs (${data.source.path} at ${data.source.commit.slice(0, 12)}, ${set.size.toLocaleString("en-US")} AMIs)`,
  };
}

const LISTS: Partial<Record<McoRelease, AllowedAmiList>> = { "4.22": listOf("4.22", release422) };

/** The compiled list the MCO of `release` decides by, or null where it asks EC2 instead. */
export const allowedAmisFor = (release: McoRelease): AllowedAmiList | null => LISTS[release] ?? null;
