import { randomBytes } from "node:crypto";
import os from "node:os";

/**
 * This process's name among the deployment's processes: `<role>:<host>:<pid>:<random>` (the random
 * part tells apart a restarted container that got the same host name and pid). Kept on globalThis so
 * the start script and Next's module graph, which load this module separately, use one name.
 */
export type Role = "web" | "collector";
export type ProcessIdentity = { name: string; role: Role; host: string; pid: number; startedAt: Date };

const holder = globalThis as unknown as { __fleetskewProcess?: ProcessIdentity };

export function processIdentity(role: Role = "web"): ProcessIdentity {
  if (!holder.__fleetskewProcess) {
    const host = os.hostname();
    holder.__fleetskewProcess = {
      name: `${role}:${host}:${process.pid}:${randomBytes(3).toString("hex")}`,
      role,
      host,
      pid: process.pid,
      startedAt: new Date(),
    };
  }
  return holder.__fleetskewProcess;
}
