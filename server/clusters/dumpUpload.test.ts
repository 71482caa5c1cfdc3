import { gzipSync } from "node:zlib";
import { createTar } from "nanotar";
import { describe, expect, it } from "vitest";
import { UserFacingError } from "../errors";
import { dumpFilesOf, UPLOAD_LIMITS, type UploadedFile } from "./dumpUpload";

const text = (s: string) => new TextEncoder().encode(s);
const file = (name: string, content: string | Uint8Array): UploadedFile => ({
  name,
  bytes: typeof content === "string" ? text(content) : content,
});
const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x" } });
const tarGz = (entries: { name: string; data?: string }[]) => gzipSync(createTar(entries));

async function refusal(run: () => Promise<unknown>): Promise<UserFacingError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserFacingError);
    return error as UserFacingError;
  }
  throw new Error("expected a refusal");
}

describe("dumpFilesOf", () => {
  it("takes several dump files as they are", async () => {
    const { files, warnings } = await dumpFilesOf([file("a.json", configMap("a")), file("b.yaml", "kind: x\n"), file("c.YML", "")]);
    expect(files.map((f) => f.name)).toEqual(["a.json", "b.yaml", "c.YML"]);
    expect(files[0]!.text).toBe(configMap("a"));
    expect(warnings).toEqual([]);
  });

  it("unpacks a .tar.gz with folders, taking only dump files and saying how many others it ignored", async () => {
    const archive = tarGz([
      { name: "site/" },
      { name: "site/cluster-scoped/clusterversion.yaml", data: "apiVersion: config.openshift.io/v1\n" },
      { name: "site/namespaces/x/configmap.json", data: configMap("a") },
      { name: "site/namespaces/x/._configmap.json", data: "\u0000\u0005binary" },
      { name: "site/logs/kubelet.log", data: "log" },
      { name: "site/README", data: "hello" },
    ]);
    const { files, warnings } = await dumpFilesOf([file("site.tar.gz", archive)]);
    expect(files.map((f) => f.name)).toEqual(["site/cluster-scoped/clusterversion.yaml", "site/namespaces/x/configmap.json"]);
    expect(files[1]!.text).toBe(configMap("a"));
    expect(warnings).toEqual(["site.tar.gz: 3 files that are not *.json, *.yaml or *.yml ignored"]);
    // A .tgz and an uncompressed .tar are archives too.
    expect((await dumpFilesOf([file("site.tgz", archive)])).files).toHaveLength(2);
    expect((await dumpFilesOf([file("site.tar", createTar([{ name: "a.json", data: configMap("a") }]))])).files).toHaveLength(1);
  });

  it("refuses an empty upload, files that are not dumps, and archives mixed with files", async () => {
    expect((await refusal(() => dumpFilesOf([]))).message).toMatch(/^No files were uploaded/);
    const notDump = await refusal(() => dumpFilesOf([file("a.json", "{}"), file("notes.txt", "x")]));
    expect([notDump.status, notDump.message]).toEqual([
      400,
      "notes.txt is not an object dump. Upload the object dumps (*.json, *.yaml, *.yml files from oc get -o json|yaml) or one .tar.gz of them",
    ]);
    const archive = tarGz([{ name: "a.json", data: "{}" }]);
    expect((await refusal(() => dumpFilesOf([file("a.json", "{}"), file("b.tar.gz", archive)]))).message).toMatch(/either one archive/);
    expect((await refusal(() => dumpFilesOf([file("a.json", "{}"), file("a.json", "{}")]))).message).toBe("a.json was uploaded twice");
    expect((await refusal(() => dumpFilesOf([file("a.json", new Uint8Array([0xff, 0xfe, 0x00]))]))).message).toMatch(
      /a\.json is not UTF-8 text/,
    );
  });

  it("refuses archives that are empty, not gzip, not tar, truncated or without dumps", async () => {
    const empty = await refusal(() => dumpFilesOf([file("empty.tar.gz", gzipSync(new Uint8Array(10240)))]));
    expect([empty.status, empty.message]).toEqual([400, "empty.tar.gz is an empty archive"]);
    expect((await refusal(() => dumpFilesOf([file("plain.tar.gz", configMap("a"))]))).message).toBe(
      "plain.tar.gz is not gzip-compressed; create the archive with tar czf",
    );
    expect((await refusal(() => dumpFilesOf([file("json.tar.gz", gzipSync(text(configMap("a").padEnd(600))))]))).message).toBe(
      "json.tar.gz does not contain a tar archive; create it with tar czf",
    );
    const whole = gzipSync(createTar([{ name: "a.json", data: configMap("a").repeat(100) }]));
    expect((await refusal(() => dumpFilesOf([file("cut.tar.gz", whole.subarray(0, whole.length / 2))]))).message).toMatch(
      /^cut\.tar\.gz is not a valid gzip file/,
    );
    const tar = createTar([{ name: "a.json", data: configMap("a").repeat(100) }]);
    expect((await refusal(() => dumpFilesOf([file("cut.tar", tar.subarray(0, 1024))]))).message).toBe(
      "cut.tar is truncated or not a valid tar archive",
    );
    expect((await refusal(() => dumpFilesOf([file("logs.tar.gz", tarGz([{ name: "kubelet.log", data: "x" }]))]))).message).toBe(
      "logs.tar.gz has no *.json, *.yaml or *.yml files (it holds 1 other entries)",
    );
  });

  it("bounds the upload, the unpacked size and the number of files", async () => {
    const limits = { ...UPLOAD_LIMITS, maxUploadBytes: 1000, maxUnpackedBytes: 4096, maxFiles: 2 };
    const big = await refusal(() => dumpFilesOf([file("a.json", "x".repeat(1001))], limits));
    expect([big.status, big.message]).toEqual([413, "The upload is larger than 1000 bytes"]);
    // A small archive that unpacks to far more than the limit (mostly zeros compress well).
    const bomb = tarGz([{ name: "a.json", data: " ".repeat(100_000) }]);
    expect(bomb.length).toBeLessThan(1000);
    const unpacked = await refusal(() => dumpFilesOf([file("bomb.tar.gz", bomb)], limits));
    expect([unpacked.status, unpacked.message]).toEqual([
      413,
      "bomb.tar.gz unpacks to more than 4 KiB; put only the object dumps in the archive, not logs",
    ]);
    const many = tarGz(["a", "b", "c"].map((n) => ({ name: `${n}.json`, data: "{}" })));
    expect((await refusal(() => dumpFilesOf([file("many.tar.gz", many)], limits))).status).toBe(413);
    expect(
      (
        await refusal(() =>
          dumpFilesOf(
            ["a", "b", "c"].map((n) => file(`${n}.json`, "{}")),
            limits,
          ),
        )
      ).status,
    ).toBe(413);
  });
});
