/**
 * A scope: the part of the fleet a grant or a token covers, written in the fleet view's own query
 * language (`clusterSet=edge-emea`, `label=region=emea`, `hub=hub-2`, `platform=AWS`,
 * `name=a,b`), several terms joined by `&` and all of them holding. The empty scope is the whole
 * fleet. Membership is decided on the cluster's registration and labels as they are now, so a
 * cluster relabelled into a set is in scope at its next read.
 */

import { CLUSTER_SET_LABEL, HUB_LABEL } from "./hubEligibility";

/** A conjunction over what a cluster is, not how it is doing: labels, platform and names. */
export type Scope = {
  /** Every entry must hold: `key` present, with `value` when one is given. */
  labels: { key: string; value?: string }[];
  platform?: string;
  /** Exact cluster names (any of them). */
  names?: string[];
  /** Set when two scopes were intersected that no cluster can meet (platform=AWS and platform=GCP). */
  empty?: true;
};

export const WHOLE_FLEET: Scope = Object.freeze({ labels: [] }) as Scope;

// A Kubernetes label key (optionally prefixed) and value; a selector is `key` or `key=value`.
export const LABEL_SELECTOR =
  /^([A-Za-z0-9][-A-Za-z0-9_.]{0,252}\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(=([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?)?$/;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PLATFORM = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/;

export const SCOPE_KEYS = ["clusterSet", "hub", "label", "platform", "name"] as const;
export const SCOPE_MAX_LENGTH = 2000;

export type ScopeResult = { ok: true; scope: Scope; text: string } | { ok: false; error: string };

/**
 * Reads a scope as a person writes it. Only what a cluster is may scope it: its set, hub, labels,
 * platform and name; a status (skew=blocked) would move clusters in and out of a team as they
 * change, so it is refused with the keys that are allowed.
 */
export function parseScope(input: string): ScopeResult {
  const raw = input.trim();
  if (raw.length > SCOPE_MAX_LENGTH) return { ok: false, error: `a scope is at most ${SCOPE_MAX_LENGTH} characters` };
  const scope: Scope = { labels: [] };
  if (!raw) return { ok: true, scope, text: "" };
  for (const term of raw.split("&").map((t) => t.trim())) {
    if (!term) continue;
    const eq = term.indexOf("=");
    const key = eq < 0 ? term : term.slice(0, eq);
    const value = eq < 0 ? "" : term.slice(eq + 1).trim();
    if (!(SCOPE_KEYS as readonly string[]).includes(key))
      return {
        ok: false,
        error: `"${term.slice(0, 80)}" is not a scope term; a scope is made of ${SCOPE_KEYS.map((k) => `${k}=…`).join(", ")} joined by &`,
      };
    if (!value) return { ok: false, error: `${key}= needs a value` };
    if (key === "clusterSet" || key === "hub") {
      if (!VALUE.test(value) && !(key === "hub" && NAME.test(value)))
        return { ok: false, error: `"${value.slice(0, 80)}" is not a ${key} name` };
      scope.labels.push({ key: key === "hub" ? HUB_LABEL : CLUSTER_SET_LABEL, value });
    } else if (key === "label") {
      for (const part of value
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean)) {
        if (!LABEL_SELECTOR.test(part)) return { ok: false, error: `"${part.slice(0, 80)}" is not a label key or key=value` };
        const at = part.indexOf("=");
        scope.labels.push(at < 0 ? { key: part } : { key: part.slice(0, at), value: part.slice(at + 1) });
      }
    } else if (key === "platform") {
      if (!PLATFORM.test(value)) return { ok: false, error: `"${value.slice(0, 80)}" is not a platform` };
      if (scope.platform !== undefined && scope.platform !== value) scope.empty = true;
      scope.platform = value;
    } else {
      const names = value
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean);
      const bad = names.find((n) => !NAME.test(n));
      if (bad) return { ok: false, error: `"${bad.slice(0, 80)}" is not a cluster name` };
      if (names.length > 1000) return { ok: false, error: "a scope names at most 1000 clusters" };
      scope.names = scope.names ? scope.names.filter((n) => names.includes(n)) : [...new Set(names)];
    }
  }
  if (scope.labels.length > 20) return { ok: false, error: "a scope holds at most 20 label terms" };
  return { ok: true, scope, text: formatScope(scope) };
}

/** The one way a scope is written back: the same scope always reads the same. */
export function formatScope(scope: Scope): string {
  const terms: string[] = [];
  const labels = [...scope.labels].sort((a, b) => a.key.localeCompare(b.key) || (a.value ?? "").localeCompare(b.value ?? ""));
  for (const l of labels) {
    if (l.key === CLUSTER_SET_LABEL && l.value !== undefined) terms.push(`clusterSet=${l.value}`);
    else if (l.key === HUB_LABEL && l.value !== undefined) terms.push(`hub=${l.value}`);
    else terms.push(`label=${l.key}${l.value === undefined ? "" : `=${l.value}`}`);
  }
  if (scope.platform !== undefined) terms.push(`platform=${scope.platform}`);
  if (scope.names) terms.push(`name=${[...scope.names].sort().join(",")}`);
  return [...new Set(terms)].sort().join("&");
}

export const isWholeFleet = (scope: Scope) =>
  !scope.empty && scope.labels.length === 0 && scope.platform === undefined && scope.names === undefined;

/** Both scopes at once: what a token narrowed to `b` reaches through its owner's grant over `a`. */
export function intersectScopes(a: Scope, b: Scope): Scope {
  const scope: Scope = { labels: [...a.labels, ...b.labels] };
  if (a.platform !== undefined || b.platform !== undefined) {
    scope.platform = a.platform ?? b.platform;
    if (a.platform !== undefined && b.platform !== undefined && a.platform !== b.platform) scope.empty = true;
  }
  if (a.names || b.names) scope.names = a.names && b.names ? a.names.filter((n) => b.names!.includes(n)) : (a.names ?? b.names);
  // A label cannot hold two values at once: clusterSet=a within clusterSet=b reaches nothing.
  const values = new Map<string, string>();
  for (const l of scope.labels) {
    if (l.value === undefined) continue;
    if (values.has(l.key) && values.get(l.key) !== l.value) scope.empty = true;
    values.set(l.key, l.value);
  }
  if (a.empty || b.empty || (scope.names && scope.names.length === 0)) scope.empty = true;
  return scope;
}

/** Whether a cluster, as registered now, is in the scope: the same rule the store's SQL applies. */
export function scopeMatches(scope: Scope, cluster: { name: string; platform: string | null; labels: Record<string, string> }): boolean {
  if (scope.empty) return false;
  if (scope.names && !scope.names.includes(cluster.name)) return false;
  if (scope.platform !== undefined && (cluster.platform ?? "unknown") !== scope.platform) return false;
  return scope.labels.every((l) => (l.value === undefined ? l.key in cluster.labels : cluster.labels[l.key] === l.value));
}
