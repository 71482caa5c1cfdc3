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
