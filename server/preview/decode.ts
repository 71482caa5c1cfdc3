import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { dataUrlBytes, DECODE_LIMITS, entries, type RenderedConfig } from "../domain/disruption/machineConfig";
import { UserFacingError } from "../errors";
import { sizeText } from "../http/body";

const gunzipAsync = promisify(gunzip);

/**
 * Decoding MachineConfig file contents within DECODE_LIMITS, before the disruption engine sees
 * them. Gzip is inflated here, on the thread pool with a cap on its output, so a small bomb neither
 * blocks the event loop nor fills memory; the engine then reads the inflated bytes from the map.
 * Inflated contents are shared by source, so an alias or a repeated file is inflated once, but
 * every entry counts toward the total: that total bounds what a preview compares and returns.
 */
export type Inflated = Map<string, Uint8Array>;

export type LimitFailure = { status: 413 | 422; subject: string };

/** Too much to decode; the message names what and the limit. */
export class DecodeLimitError extends UserFacingError {
  override name = "DecodeLimitError";
}

const tooLarge = (failure: LimitFailure, message: string) => new DecodeLimitError(failure.status, `${failure.subject}: ${message}`);

/**
 * Inflates the gzip contents of `config` into `inflated` and checks its files against the limits.
 * `subject` names the config in the answer ("The MachineConfig", "prod-east's MachineConfig
 * 00-worker"); `status` is 413 for what the requester sent and 422 for what a cluster holds.
 * Returns the decoded bytes counted.
 */
export async function decodeWithinLimits(config: RenderedConfig, inflated: Inflated, failure: LimitFailure): Promise<number> {
  const files = entries(config.files);
  if (files.length > DECODE_LIMITS.maxFiles)
    throw tooLarge(failure, `it has ${files.length} files; a MachineConfig may have at most ${DECODE_LIMITS.maxFiles}`);
  let total = 0;
  for (const file of files) {
    const source = file.contents?.source;
    if (!source) continue;
    let size: number;
    if (file.contents?.compression === "gzip") {
      let bytes = inflated.get(source);
      if (!bytes) {
        const raw = dataUrlBytes(source);
        if (raw === null || raw === "invalid") continue;
        try {
          bytes = await gunzipAsync(raw, { maxOutputLength: DECODE_LIMITS.maxFileBytes });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
            throw tooLarge(
              failure,
              `file ${file.path} inflates to more than ${sizeText(DECODE_LIMITS.maxFileBytes)}, the limit for one file`,
            );
          continue; // not valid gzip: decodeContents says so in the preview
        }
        inflated.set(source, bytes);
      }
      size = bytes.byteLength;
    } else {
      const raw = dataUrlBytes(source);
      size = raw === null || raw === "invalid" ? 0 : raw.length;
      if (size > DECODE_LIMITS.maxFileBytes)
        throw tooLarge(failure, `file ${file.path} is larger than ${sizeText(DECODE_LIMITS.maxFileBytes)}, the limit for one file`);
    }
    total += size;
    if (total > DECODE_LIMITS.maxTotalBytes)
      throw tooLarge(
        failure,
        `its files decode to more than ${sizeText(DECODE_LIMITS.maxTotalBytes)} in all, the limit for one MachineConfig`,
      );
  }
  return total;
}
