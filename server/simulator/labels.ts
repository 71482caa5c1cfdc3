/**
 * Label selectors as the Kubernetes API server and controllers apply them
 * (k8s.io/apimachinery/pkg/labels, pkg/apis/meta/v1 `LabelSelectorAsSelector`). The simulator keeps
 * its own copy so that nothing it serves is decided by the console's code.
 */
export type LabelSelector = {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key: string; operator: string; values?: string[] | null }[] | null;
};

export class SelectorError extends Error {}

/**
 * `metav1.LabelSelectorAsSelector` then `Matches`: a nil selector selects nothing, an empty one
 * everything; matchLabels and every expression must hold. An unknown operator is an error there,
 * so it selects nothing here.
 */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  const has = (k: string) => Object.prototype.hasOwnProperty.call(have, k);
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (!has(k) || have[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (!has(e.key) || !values.includes(have[e.key]!)) return false;
        break;
      case "NotIn":
        if (has(e.key) && values.includes(have[e.key]!)) return false;
        break;
      case "Exists":
        if (!has(e.key)) return false;
        break;
      case "DoesNotExist":
        if (has(e.key)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** One requirement of a selector in its string form (`labels.Parse`). */
export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!exists" };

/** Selector terms are separated by commas outside parentheses (`a in (x,y),b`). */
export function splitTerms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== "");
}

const KEY = /^[A-Za-z0-9][-A-Za-z0-9_./]*$/;

export function parseLabelSelector(selector: string | null | undefined): Requirement[] {
  if (!selector) return [];
  return splitTerms(selector).map((term): Requirement => {
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (set) {
      const values = set[3]!
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      return { key: set[1]!, op: set[2] as "in" | "notin", values };
    }
    const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (eq) return { key: eq[1]!, op: eq[2] === "!=" ? "!=" : "=", value: eq[3]! };
    const not = /^!\s*(\S+)$/.exec(term);
    if (not && KEY.test(not[1]!)) return { key: not[1]!, op: "!exists" };
    if (KEY.test(term)) return { key: term, op: "exists" };
    throw new SelectorError(`unable to parse requirement: "${term}"`);
  });
}

export function matchesRequirements(requirements: Requirement[], labels: Record<string, string> | undefined): boolean {
  const have = labels ?? {};
  return requirements.every((r) => {
    const present = Object.prototype.hasOwnProperty.call(have, r.key);
    if (r.op === "=") return present && have[r.key] === r.value;
    if (r.op === "!=") return !present || have[r.key] !== r.value;
    if (r.op === "in") return present && r.values.includes(have[r.key]!);
    if (r.op === "notin") return !present || !r.values.includes(have[r.key]!);
    if (r.op === "exists") return present;
    return !present;
  });
}
