/**
 * Text that came from a cluster (or a hub) and is kept or shown: a condition's message, a reason
 * built around one, a label used as a metric's value. A cluster may be hostile, so what it says is
 * cut to a bound before it is stored or exported (docs/security.md, "A hostile cluster or hub").
 *
 * The bound for stored text is the API's own for a condition's message: 32,768
 * (k8s.io/apimachinery/pkg/apis/meta/v1/types.go, Condition.Message, `MaxLength=32768`), the bound
 * the hub's objects are checked against (server/hubs/objects.ts). Counted here in UTF-8 bytes, as
 * Postgres stores it, so a stored text is at most 32 KiB whatever its characters.
 */
export const CONDITION_MESSAGE_MAX = 32_768;
export const MAX_STORED_TEXT_BYTES = CONDITION_MESSAGE_MAX;

/**
 * A metric label's value taken from a cluster (a reason, a node's or a set's name, a label): every
 * distinct value is a series Prometheus keeps, so a long one costs every scrape and the TSDB.
 * Kubernetes names are at most 253 characters; a label's value 63.
 */
export const MAX_LABEL_VALUE_CHARS = 128;

const ELLIPSIS = "…";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, ending in "…" when it was cut; never a broken
 * character. Null and undefined stay as they are. Costs O(maxBytes) on a text of any length.
 */
export function clipText<T extends string | null | undefined>(text: T, maxBytes: number = MAX_STORED_TEXT_BYTES): T {
  if (typeof text !== "string") return text;
  // Each UTF-16 unit is at least one UTF-8 byte: a text with at most maxBytes / 3 units always fits.
  if (text.length * 3 <= maxBytes) return text;
  const head = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  const bytes = encoder.encode(head);
  if (head === text && bytes.length <= maxBytes) return text;
  const room = Math.max(0, maxBytes - encoder.encode(ELLIPSIS).length);
  // A cut in the middle of a character decodes to U+FFFD at the end: dropped.
  const cut = decoder.decode(bytes.subarray(0, room)).replace(/\uFFFD+$/, "");
  return `${cut}${ELLIPSIS}` as T;
}

/** A metric label's value from a cluster, cut to MAX_LABEL_VALUE_CHARS characters (never a broken surrogate pair). */
export function clipLabelValue(value: string): string {
  if (value.length <= MAX_LABEL_VALUE_CHARS) return value;
  const cut = value.slice(0, MAX_LABEL_VALUE_CHARS - 1).replace(/[\uD800-\uDBFF]$/, "");
  return `${cut}${ELLIPSIS}`;
}
