import { isDeepStrictEqual } from "node:util";
import { KubeError, type ClusterClient, type KindRef } from "./client";
import { describeSpec, sameSpec, type EnforcementSpecValue, type SkewEnforcementSpec } from "../domain/acknowledgements";
import { KINDS } from "./kinds";

type Obj = { metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> }; spec?: unknown };

export type PinnedImageSetInput = {
  name: string;
  /** The labels that aim the set at its pool: the MCO gives it to every pool whose machineConfigSelector matches (docs/openshift.md §21.3). */
  poolLabels: Record<string, string>;
  images: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

/**
 * Creates a PinnedImageSet for one pool. Applying the same set twice changes nothing; a different
 * set under the same name is refused, not overwritten.
 */
export async function createPinnedImageSet(client: ClusterClient, input: PinnedImageSetInput): Promise<"created" | "unchanged"> {
  const spec = { pinnedImages: input.images.map((name) => ({ name })) };
  const body = {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "PinnedImageSet",
    metadata: {
      name: input.name,
      labels: { ...input.labels, ...input.poolLabels },
      ...(input.annotations ? { annotations: input.annotations } : {}),
    },
    spec,
  };
  try {
    await client.create(KINDS.pinnedImageSet, body);
    return "created";
  } catch (error) {
    if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
    const existing = (await client.get(KINDS.pinnedImageSet, input.name)) as Obj;
    const aimed = Object.entries(input.poolLabels).every(([k, v]) => existing.metadata.labels?.[k] === v);
    if (isDeepStrictEqual(existing.spec, spec) && aimed) return "unchanged";
    throw new KubeError("conflict", `a different PinnedImageSet named ${input.name} already exists on the cluster`, 409);
  }
}

/** Deletes a PinnedImageSet; one already gone counts as deleted. */
export async function deletePinnedImageSet(client: ClusterClient, name: string): Promise<"deleted" | "absent"> {
  try {
    await client.delete(KINDS.pinnedImageSet, name);
    return "deleted";
  } catch (error) {
    if (error instanceof KubeError && error.kind === "not-found") return "absent";
    throw error;
  }
}

/**
 * Merge-patches a cluster-scoped singleton on condition that it has not changed since it was read.
 * `build` sees the current object and returns the patch (or null: nothing to do). On a 409 the
 * object is read again and `build` decides anew, so a concurrent change is never overwritten blindly.
 */
export async function patchWithPrecondition(
  client: ClusterClient,
  ref: KindRef,
  name: string,
  build: (current: Obj) => Record<string, unknown> | null,
  attempts = 3,
): Promise<{ result: "patched" | "unchanged"; object: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const current = (await client.get(ref, name)) as Obj;
    const patch = build(current);
    if (patch === null) return { result: "unchanged", object: current };
    const metadata = { ...((patch.metadata as object) ?? {}), resourceVersion: current.metadata.resourceVersion };
    try {
      return { result: "patched", object: await client.mergePatch(ref, name, { ...patch, metadata }) };
    } catch (error) {
      if (error instanceof KubeError && error.kind === "conflict" && attempt < attempts) continue;
      if (error instanceof KubeError && error.kind === "conflict") {
        throw new KubeError(
          "conflict",
          `${ref.kind} ${name} kept changing while Fleetskew tried to update it (${attempts} attempts); try again`,
          409,
        );
      }
      throw error;
    }
  }
}

export type { SkewEnforcementSpec };

/**
 * Sets MachineConfiguration/cluster spec.bootImageSkewEnforcement (replacing the whole union).
 * With a `baseline` (the value seen when the change was asked for), a cluster whose value has
 * since changed to something else is refused rather than overwritten; one that already holds the
 * value is left alone.
 */
export async function setBootImageSkewEnforcement(
  client: ClusterClient,
  value: SkewEnforcementSpec,
  options: { baseline?: EnforcementSpecValue | null } = {},
) {
  const outcome = await patchWithPrecondition(client, KINDS.machineConfiguration, "cluster", (current) => {
    const now = ((current.spec ?? {}) as { bootImageSkewEnforcement?: EnforcementSpecValue }).bootImageSkewEnforcement ?? null;
    if (sameSpec(now, value)) return null;
    if (options.baseline !== undefined && !sameSpec(now, options.baseline))
      throw new KubeError(
        "conflict",
        `spec.bootImageSkewEnforcement changed on the cluster since the request was made: it is now ${describeSpec(now)} (it was ${describeSpec(options.baseline)}); request again if this acknowledgement is still right`,
        409,
      );
    // null first clears the old union members (merge patch would otherwise keep e.g. manual.ocpVersion).
    return {
      spec: {
        bootImageSkewEnforcement:
          value.mode === "None"
            ? { mode: "None", manual: null }
            : { mode: "Manual", manual: { ocpVersion: null, rhcosVersion: null, ...value.manual } },
      },
    };
  });
  // The API server drops a field its CRD schema does not have (pruning) and still answers 200 with
  // the stored object: only what it sent back tells whether the write took (docs/openshift.md §26).
  if (outcome.result === "patched") {
    const stored =
      ((outcome.object as Obj).spec as { bootImageSkewEnforcement?: EnforcementSpecValue } | undefined)?.bootImageSkewEnforcement ?? null;
    if (!sameSpec(stored, value)) throw droppedWrite("MachineConfiguration cluster", "spec.bootImageSkewEnforcement", describeSpec(stored));
  }
  return outcome;
}

/**
 * A write the API server accepted without keeping what was written: its CRD schema on this
 * cluster's release does not have the field, so it was pruned and the write changed nothing.
 */
function droppedWrite(object: string, field: string, now: string): KubeError {
  return new KubeError(
    "not-served",
    `the cluster accepted the write but did not keep ${field}: the ${object} API of its OpenShift release has no such field (it dropped it), so nothing changed (on the cluster it is ${now})`,
  );
}

/**
 * Starts an upgrade: ClusterVersion spec.desiredUpdate. An `architecture` left by an earlier
 * update (`oc adm upgrade --to-multi-arch`) is cleared: the API refuses it next to an image
 * ("cannot set both Architecture and Image", docs/openshift.md §26), and a merge patch would keep it.
 */
export function setDesiredUpdate(client: ClusterClient, update: { version: string; image: string }) {
  return patchWithPrecondition(client, KINDS.clusterVersion, "version", (current) => {
    const desired = (current.spec as { desiredUpdate?: { version?: string; image?: string; architecture?: string } } | undefined)
      ?.desiredUpdate;
    if (desired?.image === update.image && !desired.architecture) return null;
    return {
      spec: {
        desiredUpdate: {
          version: update.version,
          image: update.image,
          force: false,
          ...(desired?.architecture ? { architecture: null } : {}),
        },
      },
    };
  });
}
