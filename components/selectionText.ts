/**
 * The cluster picker's typed text in the fleet view's own terms: `platform=AWS`, `skew=at-risk`,
 * `readiness=warn`, `label=region=emea` (or just `region=emea`), `clusterSet=edge`, `name=a,b`, and
 * anything else is the fleet search. The answer is the fleet list API's query string, so the picker
 * counts exactly what the fleet page shows for the same filter.
 */

/** The fleet list's filters a person may type as `key=value` (the API's parameter names). */
export const TYPED_FILTERS = [
  "name",
  "platform",
  "version",
  "skew",
  "mode",
  "readiness",
  "blocker",
  "label",
  "hub",
  "clusterSet",
  "rollout",
  "rolloutState",
  "registryLess",
  "stale",
  "offline",
] as const;
const BY_LOWER = new Map<string, string>(TYPED_FILTERS.map((k) => [k.toLowerCase(), k]));
// A label key (optionally prefixed) = value, as the fleet's `label` filter takes it.
const LABEL_PAIR = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,252}\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?=[-A-Za-z0-9_.]{0,63}$/;

/**
 * The query string for `typed` on top of `base` (the filters brought from the fleet view or set
 * with the controls): a typed filter replaces the same one of the base, labels add up, and the words
 * left over are the search. Sort and paging are not a selection, so they are dropped.
 */
export function queryOfTyped(base: string, typed: string): string {
  const params = new URLSearchParams(base);
  for (const k of ["q", "after", "sort", "dir", "limit"]) params.delete(k);
  const words: string[] = [];
  const labels = params.get("label") ? [params.get("label")!] : [];
  for (const token of typed.trim().split(/\s+/).filter(Boolean)) {
    const at = token.indexOf("=");
    const key = at > 0 ? BY_LOWER.get(token.slice(0, at).toLowerCase()) : undefined;
    const value = at > 0 ? token.slice(at + 1) : "";
    if (key === "label") labels.push(value);
    else if (key) params.set(key, value);
    else if (LABEL_PAIR.test(token)) labels.push(token);
    else words.push(token);
  }
  if (labels.length) params.set("label", labels.filter(Boolean).join(","));
  if (words.length) params.set("q", words.join(" "));
  return params.toString();
}

/** The fleet view's address for a query string, or for these clusters by name. */
export const fleetLink = (query: string): string => (query ? `/fleet?${query}` : "/fleet");
export const fleetLinkToNames = (names: string[]): string => fleetLink(new URLSearchParams({ name: names.join(",") }).toString());
