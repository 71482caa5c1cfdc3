/**
 * A second web process, as far as the work limits go: it takes one slot of a kind of work for each
 * person in FLEETSKEW_TEST_HOLD_PEOPLE through the web process's own limiter (server/security/workLimiter.ts), on
 * the database in DATABASE_URL, says so on stdout, and gives them back when sent SIGTERM, as its
 * requests would when they finish. The tests then ask their own process for more of the same work.
 */
import type { WorkKind } from "../domain/workLimits";
import { workLimiter } from "../security/workLimiter";

async function main() {
  const kind = process.env.FLEETSKEW_TEST_HOLD_KIND as WorkKind;
  const releases: (() => void)[] = [];
  for (const person of (process.env.FLEETSKEW_TEST_HOLD_PEOPLE ?? "").split(",").filter(Boolean))
    releases.push(await workLimiter().acquire(kind, person));
  console.log(`holding ${releases.length}`);
  process.on("SIGTERM", () => {
    releases.forEach((release) => release());
    // The slots are deleted in the background: give the deletes a moment before leaving.
    setTimeout(() => process.exit(0), 500);
  });
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  console.error(`refused: ${(error as Error).message}`);
  process.exit(1);
});
