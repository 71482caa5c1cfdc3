import { conditionOf, type Condition } from "../domain/snapshot";

/*
 * Defensive readers for objects from a cluster: any value of another shape reads as empty, never an
 * exception, since objects come from clusters of many versions (and some return garbage).
 */
export type Any = Record<string, unknown>;
export const obj = (v: unknown): Any => (v && typeof v === "object" && !Array.isArray(v) ? (v as Any) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A status.conditions list, entries without a type dropped, sorted by type. */
export function conditionsOf(list: unknown): Condition[] {
  return arr(list)
    .map(obj)
    .filter((c) => str(c.type))
    .map((c) => ({
      type: String(c.type),
      status: str(c.status) ?? "Unknown",
      reason: str(c.reason),
      message: str(c.message),
      since: str(c.lastTransitionTime),
    }))
    .sort((a, b) => a.type.localeCompare(b.type));
}

export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The condition of this type is True. */
export const isTrue = (list: Condition[], type: string) => conditionOf(list, type)?.status === "True";
