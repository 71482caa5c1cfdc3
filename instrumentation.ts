// Runs once when the Next.js server starts. Background work lives here, inside the same module graph
// as the route handlers, so the process keeps one database pool (the embedded database allows one).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.FLEETSKEW_BACKGROUND === "0") return;
  const { startBackgroundWork } = await import("./server/runtime/background");
  startBackgroundWork();
}
