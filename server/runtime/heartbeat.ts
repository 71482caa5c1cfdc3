import { writeHeartbeat } from "../store/processes";
import type { ProcessIdentity } from "./identity";

export const HEARTBEAT_MS = 10_000;

/** Writes this process's heartbeat (memory, CPU) now and every HEARTBEAT_MS, for /metrics. */
export function startHeartbeat(
  identity: ProcessIdentity,
  onError: (error: unknown) => void,
): { stop: () => void; beat: () => Promise<void> } {
  const beat = () => {
    const cpu = process.cpuUsage();
    return writeHeartbeat({
      process: identity.name,
      role: identity.role,
      host: identity.host,
      pid: identity.pid,
      startedAt: identity.startedAt,
      rssBytes: process.memoryUsage.rss(),
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    });
  };
  void beat().catch(onError);
  const timer = setInterval(() => void beat().catch(onError), HEARTBEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), beat };
}
