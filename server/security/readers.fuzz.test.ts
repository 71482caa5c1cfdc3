import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { createTar } from "nanotar";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { dumpFilesOf, UPLOAD_LIMITS } from "../clusters/dumpUpload";
import { checkManifest } from "../domain/bundleManifest";
import { UserFacingError } from "../errors";
import { CredentialsError, parseKubeconfig } from "../kube/credentials";
import { DumpParseError, parseDumpFile } from "../kube/dumps";
import { readProposedMachineConfig } from "../preview/clusterPreview";

/**
 * The readers of hostile input, fuzzed: whatever they are given, they answer or refuse with an
 * error a person can act on (a 4xx, or the reader's own error), within a bounded time. The runs are
 * few and small so the file stays a few seconds in npm test.
 */
const RUNS = Number(process.env.FLEETSKEW_FUZZ_RUNS ?? 150);
const BUDGET_MS = 2_000;

/** Runs `work` and fails when it takes longer than `BUDGET_MS` (a hang) or throws something unexpected. */
async function bounded<T>(work: () => Promise<T> | T, expected: (error: unknown) => boolean): Promise<void> {
  const started = Date.now();
  try {
    await work();
  } catch (error) {
    if (!expected(error)) throw error;
  }
  expect(Date.now() - started).toBeLessThan(BUDGET_MS);
}

const userFacing4xx = (error: unknown) => error instanceof UserFacingError && error.status >= 400 && error.status < 500;

const text = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 3 }),
  fc.constantFrom("", "---", "a: &a [*a]", "{", "null", "[]", "\u0000"),
);
const yamlOrJson = (value: unknown) => fc.constantFrom(JSON.stringify(value), stringify(value));

/** File contents the way Ignition writes them, and ways they go wrong. */
const source = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => `data:,${encodeURIComponent(s)}`),
  fc.uint8Array({ maxLength: 64 }).map((b) => `data:;base64,${Buffer.from(b).toString("base64")}`),
  fc.uint8Array({ maxLength: 64 }).map((b) => `data:;base64,${gzipSync(b).toString("base64")}`),
  fc.constantFrom("data:,%E0%A4%A", "data:;base64,!!!", "https://example.com/x", "s3://bucket/x", "", "data:"),
  // Bombs: small, inflating past one file's limit.
  fc.constant(`data:;base64,${gzipSync(Buffer.alloc(9 * 1024 * 1024)).toString("base64")}`),
);
const file = fc.record(
  {
    path: fc.oneof(
      fc.constantFrom("/etc/x", "/etc/containers/registries.conf", "/var/lib/kubelet/config.json"),
      fc.string({ maxLength: 20 }),
    ),
    contents: fc.record({ source, compression: fc.constantFrom(undefined, null, "gzip", "zstd") }, { requiredKeys: [] }),
    mode: fc.oneof(fc.integer(), fc.constant(null)),
    append: fc.constantFrom(undefined, [], [{ source: "data:,x" }]),
  },
  { requiredKeys: ["path"] },
);
const machineConfig = fc.record(
  {
    apiVersion: fc.constantFrom("machineconfiguration.openshift.io/v1", "v1", 3),
    kind: fc.constantFrom("MachineConfig", "ConfigMap"),
    metadata: fc.record(
      { name: fc.string({ maxLength: 20 }), labels: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })) },
      { requiredKeys: [] },
    ),
    spec: fc.record(
      {
        config: fc.record(
          {
            ignition: fc.record({ version: fc.constantFrom("3.5.0", "2.2.0") }),
            storage: fc.record({ files: fc.array(file, { maxLength: 4 }) }),
          },
          { requiredKeys: [] },
        ),
        kernelArguments: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
        osImageURL: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

describe("readers of hostile input, fuzzed", () => {
  it("the MachineConfig reader answers 400 or 413, or reads it, and never hangs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(text, machineConfig.chain(yamlOrJson)), async (input) => {
        await bounded(() => readProposedMachineConfig(input), userFacing4xx);
      }),
      { numRuns: RUNS },
    );
  });

  it("the kubeconfig reader refuses with its own error or reads it", async () => {
    const user = fc.record(
      { token: fc.string({ maxLength: 10 }), "client-key-data": fc.string({ maxLength: 10 }), exec: fc.constant({}) },
      { requiredKeys: [] },
    );
    const kubeconfig = fc.record(
      {
        apiVersion: fc.constant("v1"),
        kind: fc.constant("Config"),
        clusters: fc.array(
          fc.record({
            name: fc.constantFrom("a", "b"),
            cluster: fc.record(
              { server: fc.constantFrom("https://x:6443", "ftp://x", ""), "certificate-authority-data": fc.string({ maxLength: 8 }) },
              { requiredKeys: [] },
            ),
          }),
          { maxLength: 2 },
        ),
        users: fc.array(fc.record({ name: fc.constantFrom("u", "v"), user }), { maxLength: 2 }),
        contexts: fc.array(
          fc.record({
            name: fc.constantFrom("a", "b"),
            context: fc.record({ cluster: fc.constantFrom("a", "b", "c"), user: fc.constantFrom("u", "v") }),
          }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(text, kubeconfig.chain(yamlOrJson)), fc.constantFrom("a", "b", "zz"), async (input, context) => {
        await bounded(
          () => parseKubeconfig(input).credentialsFor(context),
          (e) => e instanceof CredentialsError,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it("the bundle manifest reader names every problem and never throws", async () => {
    const image = fc.record(
      { name: fc.constantFrom("quay.io/a@sha256:" + "a".repeat(64), "x"), sizeBytes: fc.oneof(fc.integer(), fc.double()) },
      { requiredKeys: [] },
    );
    const manifest = fc.record(
      {
        apiVersion: fc.constantFrom("fleetskew.io/v1", "v2"),
        kind: fc.constantFrom("UpgradeBundle", "Other"),
        release: fc.record({ version: fc.constantFrom("4.19.11", "x"), image: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
        images: fc.oneof(fc.array(image, { maxLength: 5 }), fc.constant(Array.from({ length: 100_000 }, () => 1))),
        createdAt: fc.constantFrom("2026-11-01T09:00:00Z", "yesterday"),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          manifest.map((m) => JSON.stringify(m)),
        ),
        async (input) => {
          await bounded(
            () => {
              const result = checkManifest(input);
              if (!result.ok) expect(result.problems.length).toBeGreaterThan(0);
              expect(result.ok || result.problems.every((p) => p.length <= 1001)).toBe(true);
            },
            () => false,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("the dump readers refuse with their own errors or a 4xx, and bound what they unpack", async () => {
    const name = fc.constantFrom("a.json", "b.yaml", "c.yml", "site.tar.gz", "site.tar", "notes.txt");
    const entry = fc.record({ name: fc.constantFrom("x.json", "y.yaml", "logs/z.log", "../a.json"), data: text });
    const bytes = fc.oneof(
      text.map((t) => new TextEncoder().encode(t)),
      fc.uint8Array({ maxLength: 200 }),
      fc.array(entry, { maxLength: 3 }).map((entries) => gzipSync(createTar(entries))),
      fc.array(entry, { maxLength: 3 }).map((entries) => createTar(entries)),
      fc.constant(gzipSync(Buffer.alloc(8 * 1024 * 1024))),
    );
    const limits = { ...UPLOAD_LIMITS, maxUnpackedBytes: 1024 * 1024, maxFiles: 10, maxObjects: 100 };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ name, bytes }), { maxLength: 3 }), async (files) => {
        await bounded(async () => {
          const { files: texts } = await dumpFilesOf(files, limits);
          for (const t of texts) {
            try {
              parseDumpFile(t.name, t.text);
            } catch (error) {
              if (!(error instanceof DumpParseError)) throw error;
            }
          }
        }, userFacing4xx);
      }),
      { numRuns: RUNS },
    );
  });
});
