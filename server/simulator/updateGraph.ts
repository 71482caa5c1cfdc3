import { releaseDigest } from "./scenarios/plan";

/**
 * The simulated update service: what OpenShift's update graph (Cincinnati) offers a cluster, as the
 * CVO writes it into ClusterVersion status.availableUpdates and status.conditionalUpdates
 * (openshift/api config/v1 types_cluster_version.go: Release, ConditionalUpdate,
 * ConditionalUpdateRisk). The graph depends on the cluster's version and channel, as the real one
 * does: only newer releases; a `stable-4.N` channel offers the patches of 4.N and of earlier minors up
 * to 4.N, and the next minor only from a recent patch of the one before; `stable` lags `fast` and
 * `candidate` by the newest patch; some releases carry a known risk and are offered only as
 * conditional updates (targeted edge blocking), never as plain ones. A made-up graph, fixed so tests
 * can rely on it: it plays the update service, and says nothing about real releases.
 */

/** The newest patch of each minor the simulated graph knows (4.23 is the release in progress). */
export const NEWEST_PATCH: Record<number, number> = {
  10: 67,
  11: 59,
  12: 74,
  13: 57,
  14: 52,
  15: 55,
  16: 48,
  17: 42,
  18: 33,
  19: 32,
  20: 32,
  21: 32,
  22: 31,
  23: 2,
};
/** The next minor is offered only from a patch this close to the newest of its own minor. */
const NEXT_MINOR_FROM_LAST = 12;

export type GraphRelease = { version: string; image: string; url: string; channels: string[] };
export type GraphRisk = { name: string; message: string; url: string; matchingRules: { type: "Always" }[] };
export type ConditionalUpdate = {
  release: GraphRelease;
  risks: GraphRisk[];
  conditions: { type: "Recommended"; status: "False"; reason: string; message: string; lastTransitionTime: string }[];
};

const parse = (version: string) => {
  const m = /^4\.(\d+)\.(\d+)$/.exec(version);
  return m ? { minor: Number(m[1]), patch: Number(m[2]) } : null;
};

/** `stable-4.19` → stable, 19; anything else (no channel, a made-up one) → null: the graph offers nothing. */
const parseChannel = (channel: string | null | undefined) => {
  const m = /^(stable|fast|candidate|eus)-4\.(\d+)$/.exec(channel ?? "");
  return m ? { kind: m[1]!, minor: Number(m[2]) } : null;
};

/** Known issues of the simulated graph: the first two patches of a minor, and one patch in nine after them. */
function risksOf(minor: number, patch: number): GraphRisk[] {
  const risks: GraphRisk[] = [];
  if (patch < 2)
    risks.push({
      name: "EarlyMinorRelease",
      message: `4.${minor}.${patch} is among the first releases of 4.${minor}; wait for a later patch unless you need it now.`,
      url: `https://issues.example.com/browse/SIM-${minor}${patch}`,
      matchingRules: [{ type: "Always" }],
    });
  if (patch > 2 && (minor + patch) % 9 === 0)
    risks.push({
      name: "OVNHostNetworkPolicy",
      message: `Pods using host networking may lose NetworkPolicy enforcement after updating to 4.${minor}.${patch}.`,
      url: `https://issues.example.com/browse/SIM-${minor}-${patch}`,
      matchingRules: [{ type: "Always" }],
    });
  return risks;
}

const channelsOf = (minor: number, patch: number) => {
  const newest = NEWEST_PATCH[minor] ?? 0;
  const kinds = patch === newest ? ["candidate", "fast"] : ["candidate", "fast", "stable"];
  return [minor, minor + 1].flatMap((m) => kinds.map((k) => `${k}-4.${m}`)).sort();
};

function releaseOf(minor: number, patch: number): GraphRelease {
  const version = `4.${minor}.${patch}`;
  return {
    version,
    image: releaseDigest(version),
    url: `https://access.redhat.com/errata/RHBA-2026:${String(minor * 100 + patch).padStart(5, "0")}`,
    channels: channelsOf(minor, patch),
  };
}

/** What the update service offers a cluster at `version` on `channel`, split as the CVO writes it. */
export function updatesFor(
  version: string,
  channel: string | null | undefined,
  now = "2026-11-20T08:00:00Z",
): { availableUpdates: GraphRelease[]; conditionalUpdates: ConditionalUpdate[] } {
  const current = parse(version);
  const ch = parseChannel(channel);
  const availableUpdates: GraphRelease[] = [];
  const conditionalUpdates: ConditionalUpdate[] = [];
  if (!current || !ch || ch.minor < current.minor) return { availableUpdates, conditionalUpdates };
  const targets: [number, number][] = [];
  for (let p = current.patch + 1; p <= (NEWEST_PATCH[current.minor] ?? current.patch); p++) targets.push([current.minor, p]);
  const next = current.minor + 1;
  if (ch.minor >= next && NEWEST_PATCH[next] !== undefined && current.patch >= (NEWEST_PATCH[current.minor] ?? 0) - NEXT_MINOR_FROM_LAST)
    for (let p = 0; p <= NEWEST_PATCH[next]!; p++) targets.push([next, p]);
  for (const [minor, patch] of targets) {
    const release = releaseOf(minor, patch);
    if (!release.channels.includes(`${ch.kind}-4.${ch.minor}`) && ch.kind !== "eus") continue;
    const risks = risksOf(minor, patch);
    if (!risks.length) availableUpdates.push(release);
    else
      conditionalUpdates.push({
        release,
        risks,
        conditions: [
          {
            type: "Recommended",
            status: "False",
            reason: risks.length === 1 ? risks[0]!.name : "MultipleReasons",
            message: risks.map((r) => `${r.message} ${r.url}`).join("\n\n"),
            lastTransitionTime: now,
          },
        ],
      });
  }
  return { availableUpdates, conditionalUpdates };
}
