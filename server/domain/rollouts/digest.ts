/**
 * The digest of a rollout's plan: what an approver reviews and approves. It covers the request
 * (what is written, the strategy, the windows), the waves, and every cluster with its wave, the id
 * frozen for it, whether it is excluded or skipped, and the label value that picks its window. Any
 * change to one of them is a different plan, so an approval sent for the old digest is refused (as
 * GitHub environments and Spinnaker approve a specific revision).
 */
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level and undefined left out: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export type DigestWave = { index: number; name: string; kind: string; mandatory: boolean };

/**
 * sha256 over the canonical request, the waves and the clusters' own digest (`clustersDigest`,
 * computed where the clusters are, over one line per cluster in wave then name order).
 */
export function planDigest(plan: { request: unknown; waves: readonly DigestWave[]; clustersDigest: string }): string {
  const waves = plan.waves.map((w) => ({ index: w.index, name: w.name, kind: w.kind, mandatory: w.mandatory }));
  return createHash("sha256")
    .update(canonicalJson({ request: plan.request, waves, clusters: plan.clustersDigest }))
    .digest("hex");
}

/** The digests an If-Match header names (`"abc"`, `W/"abc"`, lists); `*` names no version and is left out. */
export function digestsOfIfMatch(header: string): string[] {
  return [...header.matchAll(/(?:W\/)?"([^"]*)"/g)].map((m) => m[1]!).filter((d) => d.length > 0);
}
