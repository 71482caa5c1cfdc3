import type { Reach } from "../domain/grants";
import type { Scope } from "../domain/scope";

/**
 * A reach as SQL over a "Cluster" row: the one place the store turns grants into a condition, so
 * that every query limited to a person's part of the fleet is limited the same way (the pure rule
 * is scopeMatches in server/domain/scope.ts). `add` appends a value and gives its placeholder.
 */
export function reachSql(reach: Reach, add: (value: unknown) => string, alias = "c"): string {
  if (reach.kind === "fleet") return "TRUE";
  const scopes = reach.anyOf.filter((s) => !s.empty);
  if (scopes.length === 0) return "FALSE";
  return `(${scopes.map((s) => scopeSql(s, add, alias)).join(" OR ")})`;
}

function scopeSql(scope: Scope, add: (value: unknown) => string, alias: string): string {
  const parts: string[] = [];
  if (scope.names) parts.push(`${alias}."name" = ANY(${add(scope.names)}::text[])`);
  if (scope.platform !== undefined) parts.push(`coalesce(${alias}."platform", 'unknown') = ${add(scope.platform)}`);
  for (const label of scope.labels)
    parts.push(
      label.value === undefined
        ? `${alias}."labels" ? ${add(label.key)}`
        : `${alias}."labels" @> jsonb_build_object(${add(label.key)}::text, ${add(label.value)}::text)`,
    );
  return parts.length ? `(${parts.join(" AND ")})` : "TRUE";
}

/** A condition that the cluster named by `nameColumn` is in reach (for tables that name clusters). */
export function clusterInReachSql(reach: Reach, nameColumn: string, add: (value: unknown) => string): string {
  if (reach.kind === "fleet") return "TRUE";
  return `EXISTS (SELECT 1 FROM "Cluster" rc_scope WHERE rc_scope."name" = ${nameColumn} AND ${reachSql(reach, add, "rc_scope")})`;
}

/** A placeholder-numbering helper for a values array: `$n` of the value just pushed. */
export const adder = (values: unknown[]) => (value: unknown) => `$${values.push(value)}`;
