import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

/**
 * The CVO's own answers to the generated cases of server/domain/upstream/cvoCases.ts, as its Go code
 * gave them (docs/openshift.md §20.6), by case id.
 */
export type CvoAnswer = {
  id: string;
  /** Every `Upgradeable…` condition ClusterVersion carries afterwards. */
  conditions?: { type: string; status: string; reason: string; message: string }[];
  /** What failed before the CVO combined it: 4.23 risk names, 4.22 check conditions. */
  sources?: (string | { type: string; status: string; reason: string })[];
  giantHop?: { blocking: boolean; reason: string; message: string } | null;
  upgradeable?: { blocking: boolean; reason: string; message: string } | null;
  recommended?: { status: string; reason: string; message: string };
};

export function recordedCvoAnswers(): Map<string, CvoAnswer> {
  return new Map(
    gunzipSync(readFileSync(join(__dirname, "../domain/upstream/cvoCases.answers.jsonl.gz")))
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as CvoAnswer)
      .map((a) => [a.id, a]),
  );
}
