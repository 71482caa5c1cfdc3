/** Kubernetes label selectors in their string form (`a=b,c!=d,e in (x,y),!f`), and field selectors. */
export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!exists" };

export class SelectorError extends Error {}

// Split on commas that are not inside parentheses.
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      terms.push(current);
      current = "";
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter(Boolean);
}

export function parseLabelSelector(selector: string | null | undefined): Requirement[] {
  if (!selector) return [];
  return splitTerms(selector).map((term) => {
    let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (m)
      return {
        key: m[1]!,
        op: m[2] as "in" | "notin",
        values: m[3]!
          .split(",")
          .map((v) => v.trim())
          .filter(Boolean),
      };
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (m) return { key: m[1]!, op: m[2] === "!=" ? "!=" : "=", value: m[3]! };
    m = /^!\s*(\S+)$/.exec(term);
    if (m) return { key: m[1]!, op: "!exists" };
    if (/^[\w./-]+$/.test(term)) return { key: term, op: "exists" };
    throw new SelectorError(`unable to parse requirement: "${term}"`);
  });
}

export function matchesLabels(requirements: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return requirements.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case "=":
        return has && l[r.key] === r.value;
      case "!=":
        return !has || l[r.key] !== r.value;
      case "in":
        return has && r.values.includes(l[r.key]!);
      case "notin":
        return !has || !r.values.includes(l[r.key]!);
      case "exists":
        return has;
      case "!exists":
        return !has;
    }
  });
}

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
