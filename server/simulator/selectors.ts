/** Kubernetes field selectors; label selectors are in labels.ts. */
import { SelectorError, splitTerms } from "./labels";

export { matchesRequirements as matchesLabels, parseLabelSelector, SelectorError, type Requirement } from "./labels";

/** Field selectors: only metadata.name and metadata.namespace, with = / == / !=, as most clients use. */
export function parseFieldSelector(
  selector: string | null | undefined,
): (obj: { metadata: { name?: string; namespace?: string } }) => boolean {
  if (!selector) return () => true;
  const checks = splitTerms(selector).map((term) => {
    const m = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (!m) throw new SelectorError(`field label not supported: ${term.split(/[=!]/)[0]}`);
    const field = m[1] === "metadata.name" ? "name" : "namespace";
    const negate = m[2] === "!=";
    return (obj: { metadata: { name?: string; namespace?: string } }) => (obj.metadata[field] === m[3]) !== negate;
  });
  return (obj) => checks.every((c) => c(obj));
}
