/**
 * The background process of `npm start` (started and supervised by scripts/start.ts, never by hand):
 * the collector and the job system's work (recurring jobs, registration items), off the web server's
 * event loop. It uses the database the web process opened (DATABASE_URL in its environment: a
 * Postgres, or the embedded database's socket) and exits when the web process goes away.
 */
import { onFleetListChange } from "../server/fleet/fleetList";
import { startBackgroundWork } from "../server/runtime/background";
import { FLEET_LIST_CHANGED } from "../server/runtime/backgroundProcess";
import { readConfig } from "../server/config/env";
import { closeDb } from "../server/store/db";

const SWEEP_NEWS_MS = 3_000;

async function main() {
  if (!process.send) throw new Error("scripts/background.ts is started by npm start (scripts/start.ts), not by hand");
  const config = readConfig();
  // What a person's change made here (a registration) shows at once in the web process's fleet list;
  // sweeps' news at most every SWEEP_NEWS_MS, so that a sweep of the whole fleet does not make the web
  // server read the list again after every cluster (its list is held that long anyway).
  let sweepNews: NodeJS.Timeout | undefined;
  const tell = (cause: "change" | "sweep") => process.connected && process.send?.({ type: FLEET_LIST_CHANGED, cause });
  onFleetListChange((cause) => {
    if (cause === "change") return void tell(cause);
    sweepNews ??= setTimeout(() => {
      sweepNews = undefined;
      tell("sweep");
    }, SWEEP_NEWS_MS);
  });
  const work = await startBackgroundWork(config.webSweeps);
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    // The web process gone (its IPC channel closed) or stopping us: finish what is in flight, then exit.
    const deadline = setTimeout(() => process.exit(0), 15_000);
    deadline.unref();
    await work.stop().catch((error: Error) => console.error(`fleetskew background: ${why}: ${error.message}`));
    await closeDb().catch(() => undefined);
    process.exit(0);
  };
  process.on("disconnect", () => void stop("the web process went away"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  // Started after the web process died already: nothing to serve.
  if (!process.connected) await stop("the web process went away");
}

main().catch((error) => {
  console.error("fleetskew background:", error instanceof Error ? error.message : error);
  process.exit(1);
});
