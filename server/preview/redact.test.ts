import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DECODE_LIMITS, readMachineConfig, type RenderedConfig } from "../domain/disruption/machineConfig";
import { decodeWithinLimits } from "./decode";
import { compareFile, isSecretPath, looksLikeCredentials } from "./redact";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");

const config = (name: string, files: Record<string, string>): RenderedConfig =>
  readMachineConfig(
    {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name },
      spec: {
        config: {
          storage: {
            files: Object.entries(files).map(([path, text]) => ({ path, contents: { source: `data:,${encodeURIComponent(text)}` } })),
          },
        },
      },
    },
    name,
  );

const budget = () => ({ remaining: 1024 * 1024 });

describe("what a preview shows of file contents", () => {
  const before = config("cluster", { "/etc/chrony.conf": "pool 2.rhel.pool.ntp.org iburst\n" });
  const proposed = config("99-worker-chrony", { "/etc/chrony.conf": "server ntp.example.com iburst\n" });
  const after = config("merged", { "/etc/chrony.conf": "server ntp.example.com iburst\n" });

  it("admins see both sides", async () => {
    const shown = await compareFile("/etc/chrony.conf", { before, after, proposed }, { role: "admin" }, new Map(), budget());
    expect(shown).toMatchObject({ shown: "both", before: "pool 2.rhel.pool.ntp.org iburst\n", after: "server ntp.example.com iburst\n" });
  });

  it("other roles see what they submitted, never the cluster's contents", async () => {
    for (const role of ["viewer", "technician", "approver"] as const) {
      const shown = await compareFile("/etc/chrony.conf", { before, after, proposed }, { role }, new Map(), budget());
      expect(shown).toMatchObject({ shown: "submitted", before: null, after: "server ntp.example.com iburst\n" });
    }
    // A file the merge kept from the cluster (the proposal does not have it) is not theirs.
    const removedBefore = config("cluster", { "/etc/motd": "welcome to the secret lab\n" });
    const none = await compareFile(
      "/etc/motd",
      { before: removedBefore, after: config("merged", {}), proposed },
      { role: "viewer" },
      new Map(),
      budget(),
    );
    expect(none).toMatchObject({ shown: "none", before: null, after: null });
  });

  it("nobody sees secrets: the pull secret, kubeconfigs, keys, or contents that look like credentials; only digests", async () => {
    const pull = '{"auths":{"quay.io":{"auth":"c2VjcmV0"}}}';
    const cases: [string, string][] = [
      ["/var/lib/kubelet/config.json", pull],
      ["/etc/kubernetes/kubeconfig", "apiVersion: v1\nkind: Config\n"],
      ["/etc/pki/tls/private/server.key", "x"],
      ["/etc/app/settings.conf", "db_password = hunter2\n"],
      ["/etc/app/tls.pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"],
    ];
    for (const [path, text] of cases) {
      const mine = config("99", { [path]: text });
      const shown = await compareFile(
        path,
        { before: config("c", { [path]: `${text} old` }), after: mine, proposed: mine },
        { role: "admin" },
        new Map(),
        budget(),
      );
      expect(shown, path).toMatchObject({ shown: "secret", before: null, after: null });
      expect(shown.digests?.before).toMatch(/^hmac-sha256:[0-9a-f]{32}$/);
      expect(shown.digests?.after).not.toBe(shown.digests?.before);
      expect(JSON.stringify(shown)).not.toContain(text.slice(0, 12));
    }
    expect(isSecretPath("/etc/chrony.conf")).toBe(false);
    expect(looksLikeCredentials("server ntp.example.com iburst\n")).toBe(false);
  });

  it("one answer carries a bounded amount of contents", async () => {
    const big = "x".repeat(600 * 1024);
    const mine = config("99", { "/etc/big": big });
    const shared = { remaining: 1024 * 1024 };
    const first = await compareFile(
      "/etc/big",
      { before: config("c", {}), after: mine, proposed: mine },
      { role: "admin" },
      new Map(),
      shared,
    );
    const second = await compareFile(
      "/etc/big",
      { before: config("c", {}), after: mine, proposed: mine },
      { role: "admin" },
      new Map(),
      shared,
    );
    expect(first.after).toBe(big);
    expect(second.after).toBeNull();
    expect(second.note).toMatch(/contents left out/);
  });
});

describe("decoding within limits", () => {
  const gz = (bytes: number) => `data:;base64,${gzipSync(Buffer.alloc(bytes)).toString("base64")}`;
  const withFiles = (files: { path: string; contents: { source: string; compression?: string } }[]) =>
    readMachineConfig({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name: "x" },
      spec: { config: { storage: { files } } },
    });
  const failure = { status: 413 as const, subject: "The MachineConfig" };

  it("inflates gzip once per source, off the event loop, and counts every entry", async () => {
    const inflated = new Map<string, Uint8Array>();
    const source = gz(1024);
    const total = await decodeWithinLimits(
      withFiles([
        { path: "/a", contents: { source, compression: "gzip" } },
        { path: "/b", contents: { source, compression: "gzip" } },
      ]),
      inflated,
      failure,
    );
    expect(total).toBe(2048);
    expect(inflated.size).toBe(1);
  });

  it("refuses a file that inflates past its limit, too many files, and too much in all, naming which", async () => {
    await expect(
      decodeWithinLimits(
        withFiles([{ path: "/bomb", contents: { source: gz(DECODE_LIMITS.maxFileBytes + 1), compression: "gzip" } }]),
        new Map(),
        failure,
      ),
    ).rejects.toMatchObject({
      status: 413,
      message: "The MachineConfig: file /bomb inflates to more than 8 MiB, the limit for one file",
    });
    const many = Array.from({ length: DECODE_LIMITS.maxFiles + 1 }, (_, i) => ({ path: `/f${i}`, contents: { source: "data:,x" } }));
    await expect(decodeWithinLimits(withFiles(many), new Map(), failure)).rejects.toMatchObject({
      message: /it has 2001 files; a MachineConfig may have at most 2000/,
    });
    const source = gz(DECODE_LIMITS.maxFileBytes - 1);
    const aliases = Array.from({ length: 5 }, (_, i) => ({ path: `/f${i}`, contents: { source, compression: "gzip" } }));
    await expect(
      decodeWithinLimits(withFiles(aliases), new Map(), { status: 422, subject: "prod-east's MachineConfig 00-worker" }),
    ).rejects.toMatchObject({
      status: 422,
      message: "prod-east's MachineConfig 00-worker: its files decode to more than 32 MiB in all, the limit for one MachineConfig",
    });
  });
});
