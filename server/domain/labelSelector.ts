/** metav1.LabelSelector: matchLabels AND every matchExpression. An empty selector matches everything. */
export type LabelSelector = {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | string; values?: string[] | null }[] | null;
};

export function selectorMatches(selector: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false; // a nil selector selects nothing (Kubernetes semantics)
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(l[e.key]!))) return false;
    if (e.operator === "NotIn" && has && values.includes(l[e.key]!)) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
    if (!["In", "NotIn", "Exists", "DoesNotExist"].includes(e.operator)) return false;
  }
  return true;
}

/** A label selector in its string form (`a=b,c!=d,e in (x,y),!f`), as list requests carry it. */
export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!exists" };

export class SelectorError extends Error {}

/** Splits a selector on the commas that are not inside parentheses. */
export function splitSelectorTerms(selector: string): string[] {
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
  return splitSelectorTerms(selector).map((term) => {
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
