import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { openSecret, sealSecret } from "../secrets/keyring";
import {
  findPreviewInputs,
  listPlainPreviewInputs,
  listSealedPreviewInputs,
  replaceSealedPreviewInputs,
  savePreviewInputs,
} from "../store/previewInputs";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * The cluster objects kept for offline previews, sealed at rest like cluster credentials: JSON,
 * gzip-compressed (MachineConfigs compress well), then AES-256-GCM bound to the cluster's id.
 */
const context = (clusterId: string) => `preview-inputs:${clusterId}`;
/** Far above what one cluster's pools and MachineConfigs take; stops a damaged row from filling memory. */
const MAX_OPENED_BYTES = 512 * 1024 * 1024;

export async function sealPreviewObjects(clusterId: string, objects: unknown[]): Promise<Uint8Array<ArrayBuffer>> {
  const sealed = await sealSecret(await gzipAsync(Buffer.from(JSON.stringify(objects))), context(clusterId));
  return new Uint8Array(sealed);
}

export async function openPreviewObjects(clusterId: string, sealed: Uint8Array): Promise<unknown[]> {
  const json = await gunzipAsync(await openSecret(sealed, context(clusterId)), { maxOutputLength: MAX_OPENED_BYTES });
  return JSON.parse(json.toString("utf8")) as unknown[];
}

export async function keepPreviewInputs(clusterId: string, input: { key: string; objects: unknown[]; observedAt: Date }): Promise<void> {
  await savePreviewInputs(clusterId, {
    key: input.key,
    sealed: await sealPreviewObjects(clusterId, input.objects),
    observedAt: input.observedAt,
  });
}

/** A cluster's kept preview inputs, opened; null when none are kept. */
export async function storedPreviewInputs(
  clusterName: string,
): Promise<{ objects: unknown[]; observedAt: string; confirmedAt: string } | null> {
  const row = await findPreviewInputs(clusterName);
  if (!row) return null;
  const objects = row.sealed ? await openPreviewObjects(row.clusterId, row.sealed) : (row.plain ?? []);
  return { objects, observedAt: row.observedAt, confirmedAt: row.confirmedAt };
}

/**
 * Seals the rows kept in the clear before sealing existed. The start runs it, so those copies do
 * not wait for their cluster's configuration to change (which may be never) to be sealed.
 */
export async function sealPlainPreviewInputs(): Promise<number> {
  let sealed = 0;
  for (let page = await listPlainPreviewInputs(); page.length; page = await listPlainPreviewInputs()) {
    let progressed = false;
    for (const row of page) {
      if (await replaceSealedPreviewInputs(row.clusterId, { sealed: null }, await sealPreviewObjects(row.clusterId, row.objects))) {
        sealed++;
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  return sealed;
}

/** Re-seals every kept copy under the current key (`npm run keys:reseal`). */
export async function resealPreviewInputs(): Promise<number> {
  let count = 0;
  let after: string | null = null;
  for (let page = await listSealedPreviewInputs(after); page.length; page = await listSealedPreviewInputs(after)) {
    for (const row of page) {
      const objects = await openPreviewObjects(row.clusterId, row.sealed);
      if (await replaceSealedPreviewInputs(row.clusterId, { sealed: row.sealed }, await sealPreviewObjects(row.clusterId, objects)))
        count++;
    }
    after = page.at(-1)!.clusterId;
  }
  return count;
}
