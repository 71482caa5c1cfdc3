/**
 * The progress deadline a plan gets when it names none. An upgrade that hangs (a CVO waiting on an
 * operator, a pool that never finishes) would otherwise hold its place in the wave for ever: TALM
 * gives a ClusterGroupUpgrade's remediation 240 minutes unless told otherwise
 * (openshift-kni/cluster-group-upgrades-operator pkg/api/clustergroupupgrades/v1alpha1/types.go,
 * RemediationStrategySpec.Timeout, `+kubebuilder:default=240`). `None` written in the plan still
 * means no deadline; bundles and acknowledgements keep none unless the plan sets one.
 */
import type { RolloutRequest } from "./request";

export const DEFAULT_UPGRADE_PROGRESS_DEADLINE_MS = 240 * 60_000;

/** The request with its progress deadline resolved: as written, else the kind's default (null: none). */
export function withResolvedProgressDeadline<R extends RolloutRequest>(request: R): R {
  if (request.strategy.progressDeadline !== undefined) return request;
  const progressDeadline = request.kind === "upgrade" ? DEFAULT_UPGRADE_PROGRESS_DEADLINE_MS : null;
  return { ...request, strategy: { ...request.strategy, progressDeadline } };
}
