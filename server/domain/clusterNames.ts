/**
 * Cluster names made from kubeconfig context names. A context is often named after a user and a
 * server ("system:admin/api-prod-east-example-com:6443", "admin@Prod_East"), which is not a valid
 * cluster name (lower-case letters, digits and dashes, at most 63 characters, starting and ending
 * with a letter or digit), so a bulk registration proposes one.
 */
const MAX_NAME = 63;
/** Names a cluster may not have: /api/v1/clusters/import is the offline import. */
const RESERVED = new Set(["import"]);

/** A valid cluster name for a context name: lower-cased, anything else turned into single dashes. */
export function clusterNameFromContext(context: string): string {
  const base = context
    .normalize("NFKD")
    // Accents go with their letter ("Zürich" → "zurich") rather than becoming dashes.
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME)
    .replace(/-+$/, "");
  if (!base) return "cluster";
  return RESERVED.has(base) ? `${base}-cluster` : base;
}

/**
 * Names for every context, in order, each valid and distinct from the others: a second context
 * that sanitises to the same name gets "-2", "-3", … (shortened to stay within 63 characters).
 */
export function clusterNamesForContexts(contexts: readonly string[]): string[] {
  const used = new Set<string>();
  return contexts.map((context) => {
    const base = clusterNameFromContext(context);
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `-${n}`;
      name = `${base.slice(0, MAX_NAME - suffix.length).replace(/-+$/, "")}${suffix}`;
    }
    used.add(name);
    return name;
  });
}
