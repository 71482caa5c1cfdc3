import type { RolloutRequest } from "../domain/rollouts/request";

/** What a rollout writes, in a line: for the audit log and the lists. */
export function describeWrite(request: RolloutRequest): string {
  if (request.kind === "upgrade") return `upgrade to ${request.target}`;
  if (request.kind === "bundle") return `bundle sha256:${request.bundle.replace(/^sha256:/, "").slice(0, 12)}…`;
  const a = request.acknowledgement;
  return `acknowledgement ${a.mode} ${a.ocpVersion ?? a.rhcosVersion ?? ""}`.trim();
}
