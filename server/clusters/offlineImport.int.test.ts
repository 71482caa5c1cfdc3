import { actorFor } from "../auth/actor";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { createTar } from "nanotar";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as importRoute } from "@/app/api/v1/clusters/import/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import { UserFacingError } from "../errors";
import { listFleet } from "../fleet/fleet";
import { listAudit } from "../store/audit";
import { insertCluster } from "../store/clusters";
import { getDb } from "../store/db";
import { ensureSchedules } from "../store/sweeps";
import { listUsers, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request, signIn } from "../testing/routes";
import type { UploadedFile } from "./dumpUpload";
import { importOfflineCluster, type OfflineImportInput } from "./offlineImport";
import { changeCluster, credentialsOf, testRegisteredCluster } from "./registration";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const FIXTURES = path.join(__dirname, "../simulator/fixtures/prod-east");
const fixtureFiles = (): UploadedFile[] =>
  readdirSync(FIXTURES)
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(path.join(FIXTURES, name))) }));
const text = (s: string) => new TextEncoder().encode(s);
/** The fixture files in folders, as `tar czf site.tar.gz site/` would pack them. */
const fixtureArchive = (): UploadedFile => ({
  name: "site-13.tar.gz",
  bytes: gzipSync(
    createTar([
      { name: "site-13/" },
      ...fixtureFiles().map((f) => ({ name: `site-13/${f.name.startsWith("machine") ? "machine/" : ""}${f.name}`, data: f.bytes })),
      { name: "site-13/must-gather.log", data: "not a dump" },
    ]),
  ),
});

/** prod-east after a z-stream update to 4.19.12, completed on 2026-01-30. */
function upgradedClusterVersion(): UploadedFile {
  const cv = JSON.parse(readFileSync(path.join(FIXTURES, "clusterversion.json"), "utf8"));
  cv.spec.desiredUpdate.version = "4.19.12";
  cv.status.desired.version = "4.19.12";
  cv.status.history.unshift({
    state: "Completed",
    startedTime: "2026-01-30T08:00:00Z",
    completionTime: "2026-01-30T09:10:00Z",
    version: "4.19.12",
    image: "quay.io/openshift-release-dev/ocp-release@sha256:" + "1".repeat(64),
    verified: true,
  });
  return { name: "clusterversion.json", bytes: text(JSON.stringify(cv)) };
}

let admin: UserRecord;
const actor = () => actorFor(admin, "10.0.0.1");
const importAs = (input: OfflineImportInput, now = new Date("2026-03-01T00:00:00Z")) => importOfflineCluster(input, actor(), { now });

/** Every table an import writes to, to show a refused import leaves nothing behind. */
async function rowCounts() {
  const db = getDb();
  const [clusters, states, facts, audit, catalog, schedules] = await Promise.all([
    db.cluster.count(),
    db.clusterState.count(),
    db.clusterFact.count(),
    db.auditEvent.count(),
    db.bootImageCatalogEntry.count(),
    db.sweepSchedule.count(),
  ]);
  return { clusters, states, facts, audit, catalog, schedules };
}

async function refusal(p: Promise<unknown>): Promise<UserFacingError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UserFacingError);
  return error as UserFacingError;
}

const fleetRow = async (name: string) => (await listFleet()).find((c) => c.name === name);

beforeAll(async () => {
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  admin = (await listUsers()).find((u) => u.username === "admin")!;
  await addUser({ username: "tech", role: "technician", password: "technician password" }, actorFor(admin, null));
});

describe("offline import", () => {
  it("imports the reference cluster's dump files as an offline cluster at the given capture time", async () => {
    const result = await importAs({
      name: "site-12",
      displayName: "Site 12 (air-gapped)",
      labels: "site=plant-12, env=prod",
      capturedAt: "2026-01-15T10:00:00Z",
      files: fixtureFiles(),
    });
    expect(result).toMatchObject({
      cluster: "site-12",
      created: true,
      version: "4.19.10",
      skewStatus: "at-risk",
      oldestBootImage: "4.12.7",
      capturedAt: "2026-01-15T10:00:00.000Z",
      capturedAtSource: "given",
      previousCaptureAt: null,
      counts: { files: 11 },
    });
    expect(result.counts).toEqual({ files: 11, objects: 21, read: 21 });
    expect(result.warnings).toEqual([
      "Not in the upload, so shown as not available: Infrastructure cluster, FeatureGate cluster, ConfigMap openshift-config-managed/admin-gates, ConfigMap openshift-config/admin-acks, Provisioning provisioning-configuration",
    ]);

    const row = await fleetRow("site-12");
    expect(row).toMatchObject({
      displayName: "Site 12 (air-gapped)",
      labels: { site: "plant-12", env: "prod" },
      offline: true,
      stale: false,
      version: "4.19.10",
      skewStatus: "at-risk",
      oldestBootImage: "4.12.7",
      lastSeenAt: "2026-01-15T10:00:00.000Z",
      lastContactStatus: "unknown",
      lastContactAt: null,
    });
    // History like a first sweep: the past inferred from ClusterVersion, then what was captured.
    const facts = await getDb().clusterFact.findMany({ where: { cluster: { name: "site-12" } } });
    expect(facts.filter((f) => f.fact === "version" && f.inferred).length).toBeGreaterThan(3);
    expect(facts.filter((f) => !f.inferred).every((f) => f.at.toISOString() === "2026-01-15T10:00:00.000Z")).toBe(true);
    expect(facts.filter((f) => f.fact === "bootImage" && !f.inferred)).toHaveLength(4);
    // The fleet learned the boot images of its coreos-bootimages stream.
    expect(await getDb().bootImageCatalogEntry.count({ where: { sourceCluster: "site-12" } })).toBeGreaterThan(0);
    // Never swept, and audited.
    await ensureSchedules();
    expect(await getDb().sweepSchedule.count({ where: { cluster: { name: "site-12" } } })).toBe(0);
    const [event] = await listAudit({ action: "cluster.import" });
    expect(event).toMatchObject({ actor: "admin", targetId: "site-12", outcome: "success", ip: "10.0.0.1" });
    expect(event!.details).toMatchObject({ capturedAt: "2026-01-15T10:00:00.000Z", files: 11, version: "4.19.10" });
  });

  it("imports the same dumps from a .tar.gz with folders, at the time of the upload when no capture time is given", async () => {
    const result = await importAs({ name: "site-13", files: [fixtureArchive()] }, new Date("2026-02-10T12:00:00Z"));
    expect(result).toMatchObject({
      version: "4.19.10",
      skewStatus: "at-risk",
      capturedAt: "2026-02-10T12:00:00.000Z",
      capturedAtSource: "upload",
      counts: { files: 11 },
    });
    expect(result.warnings[0]).toBe(
      "No capture time was given; the time of the upload (2026-02-10T12:00:00.000Z) is used as the capture time",
    );
    expect(result.warnings).toContain("site-13.tar.gz: 1 file that are not *.json, *.yaml or *.yml ignored");
    expect(await fleetRow("site-13")).toMatchObject({
      offline: true,
      version: "4.19.10",
      oldestBootImage: "4.12.7",
      displayName: "site-13",
    });
  });

  it("adds a newer capture as changes only, and refuses one that is not newer", async () => {
    const before = await getDb().clusterFact.count({ where: { cluster: { name: "site-12" } } });
    const files = fixtureFiles().map((f) => (f.name === "clusterversion.json" ? upgradedClusterVersion() : f));
    const result = await importAs({ name: "site-12", capturedAt: "2026-02-01T08:00:00+01:00", files });
    expect(result).toMatchObject({
      created: false,
      version: "4.19.12",
      capturedAt: "2026-02-01T07:00:00.000Z",
      previousCaptureAt: "2026-01-15T10:00:00.000Z",
    });
    const added = await getDb().clusterFact.findMany({ where: { cluster: { name: "site-12" }, at: new Date("2026-02-01T07:00:00Z") } });
    expect(added.length).toBe(result.historyRows);
    expect(added.length).toBe((await getDb().clusterFact.count({ where: { cluster: { name: "site-12" } } })) - before);
    expect(added.map((f) => f.fact)).toContain("version");
    expect(added.map((f) => f.fact)).not.toContain("bootImage"); // the MachineSets did not change
    expect(added.every((f) => !f.inferred)).toBe(true);
    // Labels and display name not given: kept.
    expect(await fleetRow("site-12")).toMatchObject({
      version: "4.19.12",
      lastSeenAt: "2026-02-01T07:00:00.000Z",
      displayName: "Site 12 (air-gapped)",
      labels: { site: "plant-12", env: "prod" },
    });

    const counts = await rowCounts();
    for (const capturedAt of ["2026-01-20T00:00:00Z", "2026-02-01T07:00:00Z"]) {
      const refused = await refusal(importAs({ name: "site-12", capturedAt, files: fixtureFiles() }));
      expect(refused.status).toBe(409);
      expect(refused.message).toContain("already has a capture from 2026-02-01T07:00:00.000Z; a new capture must be newer");
    }
    expect(await rowCounts()).toEqual(counts);
    expect((await fleetRow("site-12"))!.version).toBe("4.19.12");
  });

  it("refuses bad input with a message and leaves no rows behind", async () => {
    await insertCluster(
      {
        name: "live-1",
        displayName: "live-1",
        labels: {},
        platform: null,
        apiUrl: "https://api.live-1.example.com:6443",
        encryptedCredentials: Buffer.from("sealed"),
      },
      { actor: "admin" },
    );
    const counts = await rowCounts();
    const withoutCv = fixtureFiles().filter((f) => f.name !== "clusterversion.json");
    const cases: [OfflineImportInput, number, RegExp][] = [
      [
        { name: "site-20", files: [...fixtureFiles(), { name: "broken.json", bytes: text("{ not json") }] },
        400,
        /^broken\.json is not valid JSON/,
      ],
      [
        { name: "site-20", files: [{ name: "empty.tar.gz", bytes: gzipSync(new Uint8Array(10240)) }] },
        400,
        /^empty\.tar\.gz is an empty archive$/,
      ],
      [{ name: "site-20", files: withoutCv }, 422, /has no ClusterVersion, so it is not the dump of an OpenShift cluster/],
      [{ name: "site-20", files: [{ name: "notes.yaml", bytes: text("just: notes\n") }] }, 400, /holds no Kubernetes objects/],
      [
        { name: "live-1", files: fixtureFiles() },
        409,
        /^live-1 is a registered cluster that Fleetskew contacts; import the dumps under another name$/,
      ],
      [{ name: "Site 20", files: fixtureFiles() }, 400, /^Name may use lower-case letters/],
      [{ name: "import", files: fixtureFiles() }, 400, /^The name import is reserved/],
      [
        { name: "site-20", capturedAt: "yesterday", files: fixtureFiles() },
        400,
        /^The capture time must be an ISO 8601 time with a time zone/,
      ],
      [
        { name: "site-20", capturedAt: "2026-03-02T00:00:00Z", files: fixtureFiles() },
        400,
        /^The capture time 2026-03-02T00:00:00.000Z is in the future$/,
      ],
      [{ name: "site-20", labels: "site", files: fixtureFiles() }, 400, /^"site" is not key=value/],
      [{ name: "site-20", files: [] }, 400, /^No files were uploaded/],
    ];
    const answers: [number, string][] = [];
    for (const [input] of cases) {
      const refused = await refusal(importAs(input));
      answers.push([refused.status, refused.message]);
    }
    expect(answers).toEqual(cases.map(([, status, message]) => [status, expect.stringMatching(message)]));
    expect(await rowCounts()).toEqual(counts);
    expect(await fleetRow("site-20")).toBeUndefined();
  });

  it("reports objects of an unexpected shape as warnings, not failures", async () => {
    const machineSets = JSON.parse(readFileSync(path.join(FIXTURES, "machinesets.json"), "utf8"));
    machineSets.items[0].spec = "not an object";
    const files = fixtureFiles().map((f) =>
      f.name === "machinesets.json" ? { name: f.name, bytes: text(JSON.stringify(machineSets)) } : f,
    );
    files.push({ name: "extra.yaml", bytes: text("- a list\n---\nkind: ConfigMap\n") });
    const result = await importAs({ name: "site-14", capturedAt: "2026-01-01T00:00:00Z", files });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        "extra.yaml document 1: not a Kubernetes object, skipped",
        "extra.yaml document 2: has no apiVersion, kind and metadata.name, skipped",
        expect.stringMatching(new RegExp(`^MachineSets: ${machineSets.items[0].metadata.name} skipped, it has an unexpected shape`)),
      ]),
    );
    expect(await fleetRow("site-14")).toMatchObject({ offline: true, version: "4.19.10" });
  });

  it.each([
    {
      rule: "bare metal with a Provisioning OS download URL: the legacy path, enforced",
      platform: "BareMetal",
      url: "http://10.0.0.5/rhcos.qcow2.gz",
      skew: "at-risk",
      missing: false,
    },
    {
      rule: "bare metal with an empty OS download URL: not enforced (mode None)",
      platform: "BareMetal",
      url: "",
      skew: "ok",
      missing: false,
    },
    {
      rule: "bare metal without the Provisioning dump: unknown, legacy assumed, and said",
      platform: "BareMetal",
      url: null,
      skew: "at-risk",
      missing: true,
    },
    {
      rule: "another platform without the Provisioning dump: not worth a warning",
      platform: "AWS",
      url: null,
      skew: "at-risk",
      missing: false,
    },
  ])("§2.2 rule 2 — $rule", async ({ platform, url, skew, missing }) => {
    const name = `metal-${platform.toLowerCase()}-${url === null ? "none" : url ? "url" : "empty"}`;
    const files = [
      ...fixtureFiles(),
      {
        name: "infrastructure.json",
        bytes: text(
          JSON.stringify({
            apiVersion: "config.openshift.io/v1",
            kind: "Infrastructure",
            metadata: { name: "cluster" },
            status: { platform, platformStatus: { type: platform }, controlPlaneTopology: "HighlyAvailable" },
          }),
        ),
      },
      ...(url === null
        ? []
        : [
            {
              name: "provisioning.yaml",
              bytes: text(
                `apiVersion: metal3.io/v1alpha1\nkind: Provisioning\nmetadata:\n  name: provisioning-configuration\nspec:\n  provisioningNetwork: Disabled\n  provisioningOSDownloadURL: "${url}"\n`,
              ),
            },
          ]),
    ];
    const result = await importAs({ name, capturedAt: "2026-01-01T00:00:00Z", files });
    expect(result.skewStatus).toBe(skew);
    expect(result.warnings.some((w) => w.includes("Provisioning provisioning-configuration"))).toBe(missing);
  });

  it("never opens an offline cluster's credentials: testing, previewing or re-crediting it says it is offline", async () => {
    for (const attempt of [credentialsOf("site-12"), testRegisteredCluster("site-12", actor())]) {
      const refused = await refusal(attempt);
      expect([refused.status, refused.message]).toEqual([
        409,
        expect.stringMatching(/^site-12 is an offline import: Fleetskew has no credentials/),
      ]);
    }
    const recredit = await refusal(
      changeCluster(
        "site-12",
        { source: { type: "token", apiUrl: "https://api.x:6443", token: "t", insecureSkipTlsVerify: false } },
        actor(),
      ),
    );
    expect(recredit.status).toBe(409);
    // Display name and labels can still be changed.
    await changeCluster("site-12", { displayName: "Site 12" }, actor());
    expect((await fleetRow("site-12"))!.displayName).toBe("Site 12");
  });
});

describe("POST /api/v1/clusters/import", () => {
  const form = (fields: Record<string, string>, files: UploadedFile[]) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.set(k, v);
    for (const file of files) f.append("files", new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name);
    return f;
  };
  const post = (body: FormData | string, cookie: string, contentType?: string) =>
    importRoute(
      request("/api/v1/clusters/import", { method: "POST", cookie, body, headers: contentType ? { "content-type": contentType } : {} }),
    );

  it("takes multipart form data from an admin and answers 201 with what was imported", async () => {
    const cookie = await signIn("admin", "admin password here");
    const res = await post(form({ name: "site-15", labels: "site=15", capturedAt: "2026-01-10T00:00:00Z" }, [fixtureArchive()]), cookie);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      cluster: "site-15",
      version: "4.19.10",
      skewStatus: "at-risk",
      capturedAt: "2026-01-10T00:00:00.000Z",
      counts: { files: 11 },
    });
    const again = await post(form({ name: "site-15", capturedAt: "2026-01-10T00:00:00Z" }, fixtureFiles()), cookie);
    expect(again.status).toBe(409);
    expect((await again.json()).error).toMatch(/a new capture must be newer/);
    const json = await post(JSON.stringify({ name: "x" }), cookie, "application/json");
    expect(json.status).toBe(415);
  });

  it("refuses anyone but an admin", async () => {
    const cookie = await signIn("tech", "technician password");
    const res = await post(form({ name: "site-16" }, fixtureFiles()), cookie);
    expect(res.status).toBe(403);
    expect(await fleetRow("site-16")).toBeUndefined();
  });
});
