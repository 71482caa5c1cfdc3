/** Kubernetes field selectors. Label selectors in their string form live in the domain, shared with captured clusters. */
import { SelectorError, splitSelectorTerms } from "../domain/labelSelector";

export { matchesLabels, parseLabelSelector, SelectorError, type Requirement } from "../domain/labelSelector";

/** Field selectors: only metadata.name and metadata.namespace, with = / == / !=, as most clients use. */
export function parseFieldSelector(
  selector: string | null | undefined,
): (obj: { metadata: { name?: string; namespace?: string } }) => boolean {
  if (!selector) return () => true;
  const checks = splitSelectorTerms(selector).map((term) => {
    const m = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (!m) throw new SelectorError(`field label not supported: ${term.split(/[=!]/)[0]}`);
    const field = m[1] === "metadata.name" ? "name" : "namespace";
    const negate = m[2] === "!=";
    return (obj: { metadata: { name?: string; namespace?: string } }) => (obj.metadata[field] === m[3]) !== negate;
  });
  return (obj) => checks.every((c) => c(obj));
}
