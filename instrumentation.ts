// Runs once when the Next.js server starts. The server itself only serves: its background work runs in
// a process of its own that scripts/start.ts supervises (server/runtime/backgroundProcess.ts). The
// heartbeat stays here, so /metrics reports the web server's own memory and CPU.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // The database connections opened before the first readers come, not while they wait.
  if (process.env.DATABASE_URL) {
    const { warmFleetReads } = await import("./server/store/fleetWindow");
    warmFleetReads().catch((error) =>
      console.error("fleetskew: opening the database connections failed:", (error as Error).message ?? error),
    );
  }
  if (process.env.FLEETSKEW_BACKGROUND === "0") return;
  const [{ startHeartbeat }, { processIdentity }] = await Promise.all([
    import("./server/runtime/heartbeat"),
    import("./server/runtime/identity"),
  ]);
  startHeartbeat(processIdentity("web"), (error) => console.error("fleetskew: heartbeat failed:", (error as Error).message ?? error));
}
