import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { parseTar, type ParsedTarFileItem } from "nanotar";
import { UserFacingError } from "../errors";
import { sizeText } from "../http/body";
import { isDumpFileName } from "../kube/dumps";

/**
 * Turns what an admin uploaded for an offline import (several dump files, or one .tar.gz of them)
 * into named texts, within bounds: an archive is unpacked in memory, so its unpacked size is capped
 * before it is allocated, not after.
 */
export type UploadedFile = { name: string; bytes: Uint8Array };
export type DumpText = { name: string; text: string };
export type UploadLimits = { maxUploadBytes: number; maxUnpackedBytes: number; maxFiles: number; maxObjects: number };

const MiB = 1024 * 1024;
export const UPLOAD_LIMITS: UploadLimits = { maxUploadBytes: 32 * MiB, maxUnpackedBytes: 128 * MiB, maxFiles: 5_000, maxObjects: 100_000 };

// Inflated on the thread pool, with its output capped: a bomb neither blocks the event loop nor fills memory.
const gunzipAsync = promisify(gunzip);

export { sizeText };

const ARCHIVE = /\.(tar\.gz|tgz|tar)$/i;
const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
/** What tar and zip tools on macOS add beside every file; never object dumps. */
const isMacMetadata = (path: string) => /(^|\/)(\._[^/]*|__MACOSX\/.*)$/.test(path);

const WHAT_TO_UPLOAD = "Upload the object dumps (*.json, *.yaml, *.yml files from oc get -o json|yaml) or one .tar.gz of them";

const utf8 = new TextDecoder("utf-8", { fatal: true });
function textOf(name: string, bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UserFacingError(400, `${name} is not UTF-8 text; object dumps are JSON or YAML`);
  }
}

/** A tar header block: its checksum is the sum of its bytes with the checksum field read as spaces. */
function isTarHeader(block: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  const stored = parseInt(
    new TextDecoder()
      .decode(block.subarray(148, 156))
      .replace(/[\0 ]+/g, " ")
      .trim(),
    8,
  );
  return stored === sum;
}

async function unpackArchive(file: UploadedFile, limits: UploadLimits): Promise<{ files: DumpText[]; warnings: string[] }> {
  let tar: Uint8Array;
  if (isGzip(file.bytes)) {
    try {
      tar = await gunzipAsync(file.bytes, { maxOutputLength: limits.maxUnpackedBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
        throw new UserFacingError(
          413,
          `${file.name} unpacks to more than ${sizeText(limits.maxUnpackedBytes)}; put only the object dumps in the archive, not logs`,
        );
      throw new UserFacingError(400, `${file.name} is not a valid gzip file (${(error as Error).message}); create it with tar czf`);
    }
  } else if (/\.tar$/i.test(file.name)) {
    if (file.bytes.length > limits.maxUnpackedBytes)
      throw new UserFacingError(413, `${file.name} is larger than ${sizeText(limits.maxUnpackedBytes)}`);
    tar = file.bytes;
  } else {
    throw new UserFacingError(400, `${file.name} is not gzip-compressed; create the archive with tar czf`);
  }
  // nanotar reads the archive through its ArrayBuffer from offset 0, so give it one of its own.
  tar = new Uint8Array(tar);
  if (tar.length < 512 || tar.subarray(0, 512).every((b) => b === 0)) throw new UserFacingError(400, `${file.name} is an empty archive`);
  if (!isTarHeader(tar.subarray(0, 512)))
    throw new UserFacingError(400, `${file.name} does not contain a tar archive; create it with tar czf`);
  let entries: ParsedTarFileItem[];
  try {
    entries = parseTar<never, { metaOnly: false }>(tar);
  } catch {
    throw new UserFacingError(400, `${file.name} is truncated or not a valid tar archive`);
  }
  const files: DumpText[] = [];
  let ignored = 0;
  for (const entry of entries) {
    if (entry.type !== "file" && entry.type !== "contiguousFile") continue;
    if (!isDumpFileName(entry.name) || isMacMetadata(entry.name)) {
      ignored++;
      continue;
    }
    if (files.length >= limits.maxFiles)
      throw new UserFacingError(413, `${file.name} holds more than ${limits.maxFiles} dump files; import fewer at a time`);
    const name = `${file.name}: ${entry.name}`;
    files.push({ name: entry.name, text: textOf(name, entry.data ?? new Uint8Array()) });
  }
  if (files.length === 0)
    throw new UserFacingError(
      400,
      `${file.name} has no *.json, *.yaml or *.yml files${entries.length ? ` (it holds ${entries.length} other entries)` : ""}`,
    );
  const warnings = ignored ? [`${file.name}: ${ignored} file${ignored === 1 ? "" : "s"} that are not *.json, *.yaml or *.yml ignored`] : [];
  return { files: files.sort((a, b) => a.name.localeCompare(b.name)), warnings };
}

/**
 * The dump files of an upload: either one archive (.tar.gz, .tgz or .tar; files may sit in
 * folders, only *.json, *.yaml and *.yml are taken) or any number of dump files. Anything else is
 * refused with a 4xx that says what to upload instead.
 */
export async function dumpFilesOf(
  uploaded: UploadedFile[],
  limits: UploadLimits = UPLOAD_LIMITS,
): Promise<{ files: DumpText[]; warnings: string[] }> {
  if (uploaded.length === 0) throw new UserFacingError(400, `No files were uploaded. ${WHAT_TO_UPLOAD}`);
  const total = uploaded.reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > limits.maxUploadBytes) throw new UserFacingError(413, `The upload is larger than ${sizeText(limits.maxUploadBytes)}`);
  const archives = uploaded.filter((f) => ARCHIVE.test(f.name));
  if (archives.length > 0) {
    if (uploaded.length > 1)
      throw new UserFacingError(400, "Upload either one archive or several dump files, not both or several archives");
    return unpackArchive(archives[0]!, limits);
  }
  if (uploaded.length > limits.maxFiles) throw new UserFacingError(413, `More than ${limits.maxFiles} files; import fewer at a time`);
  const other = uploaded.find((f) => !isDumpFileName(f.name));
  if (other) throw new UserFacingError(400, `${other.name} is not an object dump. ${WHAT_TO_UPLOAD}`);
  const names = new Set<string>();
  for (const f of uploaded) {
    if (names.has(f.name)) throw new UserFacingError(400, `${f.name} was uploaded twice`);
    names.add(f.name);
  }
  return { files: uploaded.map((f) => ({ name: f.name, text: textOf(f.name, f.bytes) })), warnings: [] };
}
