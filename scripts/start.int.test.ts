import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

/** Runs `npm start`'s script with the given environment and collects what a person would see. */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "scripts/start.ts")], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const freePort = () =>
  new Promise<{ port: number; close: () => void }>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      resolve({ port: (server.address() as net.AddressInfo).port, close: () => server.close() });
    });
  });

describe("npm start with bad configuration", () => {
  it("names a malformed DATABASE_URL in one line and exits non-zero", async () => {
    const result = await start({ DATABASE_URL: "mysql://root@localhost/fleet" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("fleetskew: DATABASE_URL must look like postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE");
  });

  it("says which port is taken", async () => {
    const taken = await freePort();
    try {
      const result = await start({ PORT: String(taken.port) });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`fleetskew: port ${taken.port} on 127.0.0.1 is already in use; stop what uses it or set PORT`);
    } finally {
      taken.close();
    }
  });

  it("says the database is unreachable, without its password", async () => {
    const closed = await freePort();
    closed.close();
    const listen = await freePort();
    listen.close();
    const result = await start({ DATABASE_URL: `postgresql://fleet:s3cret@127.0.0.1:${closed.port}/fleet`, PORT: String(listen.port) });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `fleetskew: cannot reach the database at postgresql://fleet:***@127.0.0.1:${closed.port}/fleet: connection refused; is Postgres running?`,
    );
    expect(result.stdout + result.stderr).not.toContain("s3cret");
  });
});
