/**
 * The one place Fleetskew starts an upgrade on a cluster, for a person's "Start upgrade" on the
 * Bundles page, an upgrade rollout's step and a bundle rollout's step alike: ClusterVersion is read,
 * the update refused when the cluster does not offer it (unless the caller names the release image,
 * as a vetted bundle does), confirmed when spec.desiredUpdate already has it, otherwise patched on
 * the resourceVersion read (a 409 when someone changed it meanwhile), and audited.
 */
import type { AuditInput } from "../store/audit";
import { KubeError } from "../kube/client";
import { readClusterVersion } from "../kube/readers";
import { setDesiredUpdate } from "../kube/writers";
import { auditedClusterWrite, clusterAnswer, withClusterClient } from "./access";

/**
 * Only an answer from the API server (4xx: conflict, forbidden, invalid…) says the cluster did not
 * take a write; a timeout, a lost connection or a 5xx may come after it did.
 */
export const definitelyRefused = (error: unknown) =>
  error instanceof KubeError && error.status !== undefined && error.status >= 400 && error.status < 500;

/** The cluster did not take the upgrade, for certain: in its words (`cause` is its answer, when it answered). */
export class UpgradeRefused extends Error {}

export type UpgradeStart = {
  who: Pick<AuditInput, "actor" | "role" | "ip">;
  version: string;
  /** The release image; without it, the image ClusterVersion offers for `version` (refused when it offers none). */
  image?: string;
  /**
   * The conditional-update risks the caller accepted (an upgrade rollout's `acceptRisks`): an update
   * ClusterVersion offers only conditionally is refused while any of its risks is not among them,
   * so a risk the update graph adds after approval stops the write the approver's plan would have excluded.
   */
  acceptRisks?: string[];
  details?: Record<string, unknown>;
  /**
   * A rollout's attempt at one step: a failure whose outcome is unknown is audited only on the
   * last attempt, so a step's attempts are one audit event, which says how many there were.
   */
  attempt?: { number: number; last: boolean };
};

type Update = { version?: string; image?: string };
type ConditionalUpdate = { release?: Update; risks?: { name?: string }[] };

export async function startClusterUpgrade(
  cluster: string,
  start: UpgradeStart,
): Promise<{ result: "patched" | "unchanged"; image: string }> {
  const { attempt } = start;
  const counted = attempt && attempt.number > 1 ? ` (attempt ${attempt.number})` : "";
  return withClusterClient(cluster, async (client) => {
    let image = start.image;
    if (!image) {
      const cv = await readClusterVersion(client);
      if (cv.status === "error") throw cv.error;
      if (cv.status !== "ok") throw new UpgradeRefused(`cannot read ClusterVersion: ${cv.reason}`);
      const status = (cv.value.status ?? {}) as { availableUpdates?: Update[] | null; conditionalUpdates?: ConditionalUpdate[] | null };
      const desired = cv.value.spec?.desiredUpdate;
      // Set already (a write whose answer was lost): confirmed as it is, even once the cluster no longer offers it.
      image =
        (desired?.version === start.version ? desired.image : undefined) ??
        (status.availableUpdates ?? []).find((u) => u.version === start.version)?.image;
      if (!image) {
        const conditional = (status.conditionalUpdates ?? []).find((u) => u.release?.version === start.version);
        const accepted = start.acceptRisks ?? [];
        const unaccepted = (conditional?.risks ?? []).map((r) => r.name ?? "(unnamed)").filter((name) => !accepted.includes(name));
        if (conditional && unaccepted.length)
          throw new UpgradeRefused(
            `${start.version} is only a conditional update for it, with risks not accepted: ${unaccepted.join(", ")}`,
          );
        image = conditional?.release?.image;
      }
      if (!image) throw new UpgradeRefused(`its ClusterVersion no longer lists ${start.version} as an update`);
    }
    const release = { version: start.version, image };
    try {
      const written = await auditedClusterWrite(
        start.who,
        cluster,
        {
          object: "ClusterVersion version",
          change: `set spec.desiredUpdate to ${start.version}${counted}`,
          details: { image, ...start.details, ...(attempt ? { attempts: attempt.number } : {}) },
        },
        () => setDesiredUpdate(client, release),
        (r) => (r.result === "patched" ? "desiredUpdate set" : "desiredUpdate already set"),
        { auditFailure: (error) => !attempt || attempt.last || definitelyRefused(error) },
      );
      return { result: written.result === "patched" ? "patched" : "unchanged", image };
    } catch (error) {
      if (definitelyRefused(error)) throw new UpgradeRefused(`${cluster} refused the upgrade: ${clusterAnswer(error)}`, { cause: error });
      throw error;
    }
  });
}
