import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "./env";

describe("readConfig", () => {
  it("has working defaults with nothing configured", () => {
    const c = readConfig({});
    expect(c).toMatchObject({ databaseUrl: undefined, port: 3000, host: "127.0.0.1", sessionTtlHours: 12, allowedOrigins: [] });
    expect(c.dataDir).toBe(path.resolve(".fleetskew"));
  });

  it("treats empty variables as unset", () => {
    expect(readConfig({ DATABASE_URL: "", PORT: "" }).databaseUrl).toBeUndefined();
  });

  it("names the variable at fault", () => {
    expect(() => readConfig({ DATABASE_URL: "mysql://localhost/db" })).toThrow(ConfigError);
    expect(() => readConfig({ DATABASE_URL: "not a url" })).toThrow(/^DATABASE_URL must look like postgresql:\/\//);
    expect(() => readConfig({ PORT: "eighty" })).toThrow(/^PORT must be a number/);
    expect(() => readConfig({ PORT: "70000" })).toThrow(/^PORT must be between 1 and 65535/);
    expect(() => readConfig({ FLEETSKEW_ADMIN_PASSWORD: "short" })).toThrow(/^FLEETSKEW_ADMIN_PASSWORD must be at least 12/);
  });

  it("reads a list of extra trusted origins", () => {
    expect(readConfig({ FLEETSKEW_ALLOWED_ORIGINS: "https://a.example/, https://b.example" }).allowedOrigins).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
  });
});

describe("cluster client settings", () => {
  it("default to a 10 s timeout and 2 retries, and are bounded", () => {
    expect(readConfig({}).kube).toEqual({ timeoutMs: 10_000, retries: 2 });
    expect(readConfig({ FLEETSKEW_KUBE_TIMEOUT_MS: "2500", FLEETSKEW_KUBE_RETRIES: "0" }).kube).toEqual({ timeoutMs: 2500, retries: 0 });
    expect(() => readConfig({ FLEETSKEW_KUBE_RETRIES: "50" })).toThrow(/^FLEETSKEW_KUBE_RETRIES must be at most 10/);
  });
});

describe("FLEETSKEW_MIGRATE", () => {
  it("migrates at start unless turned off, and refuses other values", () => {
    expect(readConfig({}).migrate).toBe(true);
    expect(readConfig({ FLEETSKEW_MIGRATE: "1" }).migrate).toBe(true);
    expect(readConfig({ FLEETSKEW_MIGRATE: "0" }).migrate).toBe(false);
    expect(readConfig({ FLEETSKEW_MIGRATE: "false" }).migrate).toBe(false);
    expect(() => readConfig({ FLEETSKEW_MIGRATE: "no" })).toThrow(/^FLEETSKEW_MIGRATE must be 1 or 0/);
  });
});
