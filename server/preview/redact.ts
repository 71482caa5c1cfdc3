import type { Role } from "../auth/roles";
import { mayReadClusterConfiguration } from "../auth/roles";
import {
  decodeContents,
  entries,
  type IgnitionFileEntry,
  type InflatedSources,
  type RenderedConfig,
} from "../domain/disruption/machineConfig";
import { secretDigest } from "../secrets/keyring";

/**
 * What a preview may show of file contents. A pool's MachineConfigs hold secrets (the kubelet's
 * pull secret, kubeconfigs, keys, whatever admins put in files), so:
 * - contents of secret-looking files are never shown, to anyone: only that they changed, with a
 *   keyed digest of each side;
 * - everything else is shown in full to roles that may read cluster configuration (admins);
 * - everyone else sees only contents they submitted themselves (the "after" side when it is the
 *   proposed file unchanged by the merge), never the cluster's.
 */

/** Paths whose contents are credentials wherever they appear. */
const SECRET_PATHS: RegExp[] = [
  /^\/var\/lib\/kubelet\/config\.json$/, // the cluster's global pull secret on every node
  /(^|\/)\.?kubeconfig[^/]*$/i,
  /\.kubeconfig$/i,
  /^\/etc\/kubernetes\/.*kubeconfig/i,
  /(^|\/)\.docker\/config\.json$/,
  /(^|\/)containers\/auth\.json$/,
  /(^|\/)auth\.json$/,
  /\.(key|p12|pfx|jks|keystore|kdbx)$/i,
  /(^|\/)id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/,
  /^\/etc\/(g?shadow|sudoers)(\.d\/.*)?$/,
  /(^|\/)[^/]*(secret|password|passwd|credential|token)[^/]*$/i,
];

/** Contents that look like credentials, whatever the path. */
const SECRET_CONTENTS: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/,
  /"auths"\s*:\s*\{/, // container registry credentials (pull secrets)
  /^\s*(client-key-data|client-certificate-data|token|password)\s*:\s*\S/m, // kubeconfig users
  /\b(aws_secret_access_key|secret_access_key|client_secret|api[_-]?key|private[_-]?key)\s*[=:]\s*\S/i,
  /(password|passwd|pwd|secret|token)\s*[=:]\s*\S/i, // also db_password=, client_secret:
  /^\s*(Authorization|Bearer)\s*[:=]?\s*\S+/im,
];

export const isSecretPath = (path: string) => SECRET_PATHS.some((re) => re.test(path));
export const looksLikeCredentials = (text: string | null) => text !== null && SECRET_CONTENTS.some((re) => re.test(text));

export type FileComparison = {
  path: string;
  /** Both sides' contents (admins); the after side only, as submitted; neither; or never, being secret. */
  shown: "both" | "submitted" | "none" | "secret";
  before: string | null;
  after: string | null;
  /** Keyed digests of each side (null where the file is absent), given when the contents are secret. */
  digests: { before: string | null; after: string | null } | null;
  note: string | null;
};

export type ContentReader = { role: Role };

const sameSource = (a: IgnitionFileEntry | undefined, b: IgnitionFileEntry | undefined) =>
  !!a && !!b && a.contents?.source === b.contents?.source && (a.contents?.compression ?? null) === (b.contents?.compression ?? null);

/**
 * The comparison of one changed file as `reader` may see it. `proposed` is what the requester
 * submitted: only its own file at that path, carried unchanged into the merged result, counts as
 * theirs. `budget` caps the bytes of contents one answer carries (a fleet preview shares it).
 */
export async function compareFile(
  path: string,
  sides: { before: RenderedConfig; after: RenderedConfig; proposed: RenderedConfig },
  reader: ContentReader,
  inflated: InflatedSources,
  budget: { remaining: number },
): Promise<FileComparison> {
  const find = (c: RenderedConfig) => entries(c.files).find((f) => f.path === path);
  const beforeFile = find(sides.before);
  const afterFile = find(sides.after);
  const b = beforeFile ? decodeContents(beforeFile, inflated) : null;
  const a = afterFile ? decodeContents(afterFile, inflated) : null;
  const note = a?.note ?? b?.note ?? null;
  if (isSecretPath(path) || looksLikeCredentials(b?.text ?? null) || looksLikeCredentials(a?.text ?? null)) {
    const digest = async (f: IgnitionFileEntry | undefined, text: string | null | undefined) =>
      f ? secretDigest(text ?? f.contents?.source ?? "") : null;
    return {
      path,
      shown: "secret",
      before: null,
      after: null,
      digests: { before: await digest(beforeFile, b?.text), after: await digest(afterFile, a?.text) },
      note: "contents are never shown: the path or the contents look like credentials; the digests tell whether they differ",
    };
  }
  const take = (text: string | null | undefined): string | null => {
    if (text === null || text === undefined) return null;
    const bytes = Buffer.byteLength(text);
    if (bytes > budget.remaining) return null;
    budget.remaining -= bytes;
    return text;
  };
  const overBudget = (text: string | null | undefined) =>
    text ? " (contents left out: this answer already holds as much file content as one answer may)" : "";
  if (mayReadClusterConfiguration(reader.role)) {
    const before = take(b?.text);
    const after = take(a?.text);
    const cut = (before === null ? overBudget(b?.text) : "") || (after === null ? overBudget(a?.text) : "");
    return { path, shown: "both", before, after, digests: null, note: cut ? `${note ?? ""}${cut}`.trim() : note };
  }
  const submitted = sameSource(afterFile, find(sides.proposed));
  if (submitted) {
    const after = take(a?.text);
    return {
      path,
      shown: "submitted",
      before: null,
      after,
      digests: null,
      note: note ?? (after === null ? overBudget(a?.text).trim() || null : null),
    };
  }
  return {
    path,
    shown: "none",
    before: null,
    after: null,
    digests: null,
    note: "the cluster's contents are shown only to roles that may read cluster configuration (admins)",
  };
}
