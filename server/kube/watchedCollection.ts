import http2 from "node:http2";
import zlib from "node:zlib";
import { MAX_WATCH_LINE_BYTES } from "./limits";

/*
 * A collection of one cluster's objects kept current by a watch on the cluster's HTTP/2 connection,
 * as client-go's informers keep theirs (k8s.io/client-go tools/cache reflector.go: list, then watch
 * from the list's resourceVersion; a watch the server ends is resumed from the last version seen; an
 * error, or a version the server no longer keeps (410 Gone), means listing again). A steady sweep
 * then reads from memory what it used to ask for every time (docs/architecture.md, "Watched reads").
 *
 * The objects are kept as their JSON, compressed, outside the JavaScript heap: a simulated cluster's
 * watched kinds are some 85 KB of parsed objects and 10 KB so (docs/benchmarks.md, "Watched reads"),
 * and a collector holds thousands of clusters. A read inflates and parses them (a fifth of a
 * millisecond a cluster); changes wait, parsed, until the next read folds them in.
 *
 * Everything a watch sends is bounded like a list: a line at most MAX_WATCH_LINE_BYTES, the objects
 * held at most the client's `CacheBudget`, the events between two reads at most
 * MAX_EVENTS_BETWEEN_READS. Past any of them, or on anything malformed, the watch is given up and the
 * memory freed: the next read lists the kind again, as if it were never watched.
 */

/** How much one client's watched collections may hold, shared among them (compressed, and the changes not yet folded in). */
export class CacheBudget {
  used = 0;
  constructor(readonly max: number) {}
}

/** Events a collection takes between two reads before it is cheaper to list again (a churning kind). */
export const MAX_EVENTS_BETWEEN_READS = 5_000;

/** A resumed watch that ends sooner than this after it began is not resumed again: the next read lists. */
const MIN_RESUMED_WATCH_MS = 1_000;

type Meta = { name?: unknown; namespace?: unknown; resourceVersion?: unknown; managedFields?: unknown };

/** Opens the watch from `resourceVersion` on the cluster's connection; null when there is no open connection. */
export type WatchOpener = (resourceVersion: string) => http2.ClientHttp2Stream | null;

export class WatchedCollection {
  /** The objects as of the last read, in key order: their JSON array, deflated. */
  private packed: Buffer = Buffer.alloc(0);
  /** The length of the packed JSON in bytes, and how many objects it holds. */
  private packedLength = 0;
  private count = 0;
  /** Changes since, by key: the object, or null once deleted. */
  private readonly changes = new Map<string, unknown>();
  private stream: http2.ClientHttp2Stream | null = null;
  /** The server answered the watch with 200 and it has not ended since. */
  private open = false;
  /** Given up: the collection answers nothing more and holds nothing. */
  private failed = false;
  /** The server refused the watch (an HTTP status other than 200: not allowed to watch, say). */
  refused = false;
  /** What the collection holds against the budget: the packed objects and the changes' JSON. */
  private bytes = 0;
  private pendingBytes = 0;
  private eventsSinceRead = 0;

  constructor(
    items: unknown[],
    private resourceVersion: string,
    private readonly budget: CacheBudget,
    private readonly openWatch: WatchOpener,
    /** A list's limits: as many objects, and as many bytes of JSON, as one list may hold. */
    private readonly limits: { maxItems: number; maxBytes: number },
  ) {
    const keyed: [string, unknown][] = [];
    for (const item of items) {
      const key = keyOf(item);
      if (key === null) {
        this.failed = true;
        return;
      }
      keyed.push([key, withoutManagedFields(item)]);
    }
    if (!this.pack(keyed)) this.giveUp();
  }

  /** Keeps `keyed` (sorted here) as the objects; false when that goes past the budget. */
  private pack(keyed: [string, unknown][]): boolean {
    keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const json = Buffer.from(JSON.stringify(keyed.map(([, object]) => object)), "utf8");
    // Bounded as a list is: what the next read inflates and parses is never more than a list may be.
    if (json.length > this.limits.maxBytes || keyed.length > this.limits.maxItems) return false;
    const deflated = zlib.deflateRawSync(json, { level: 1 });
    // Copied to a buffer of its own size: zlib's answer is a slice of its whole output chunk (16 KiB
    // or more), which a kept slice would hold on to for every collection.
    const packed = Buffer.allocUnsafeSlow(deflated.length);
    deflated.copy(packed);
    this.charge(packed.length - this.packed.length);
    this.packed = packed;
    this.packedLength = json.length;
    this.count = keyed.length;
    return this.budget.used <= this.budget.max;
  }

  /** Whether a read may be answered from memory: the watch is open and nothing has gone wrong. */
  get current(): boolean {
    return this.open && !this.failed;
  }

  /** The objects as a list gives them: in key order (namespace/name by code point, etcd's), each read a new copy. */
  items(): unknown[] {
    this.eventsSinceRead = 0;
    const objects = JSON.parse(
      zlib.inflateRawSync(this.packed, { maxOutputLength: Math.max(1, this.packedLength) }).toString("utf8"),
    ) as unknown[];
    if (this.changes.size === 0) return objects;
    const byKey = new Map(objects.map((object) => [keyOf(object)!, object]));
    for (const [key, object] of this.changes) {
      if (object === null) byKey.delete(key);
      else byKey.set(key, object);
    }
    this.charge(-this.pendingBytes);
    this.pendingBytes = 0;
    this.changes.clear();
    const keyed = [...byKey];
    if (!this.pack(keyed)) {
      // Past the budget: this read has its objects, the next lists.
      this.giveUp();
    }
    return keyed.map(([, object]) => object);
  }

  /** Starts watching from the list's version. False when it cannot (no open connection, or the list was malformed). */
  start(): boolean {
    if (this.failed || !this.resourceVersion) return (this.giveUp(), false);
    return this.watch();
  }

  /** Stops watching and frees the objects (the client is closed or drops the collection). */
  stop(): void {
    this.giveUp();
  }

  private charge(bytes: number): boolean {
    this.bytes += bytes;
    this.budget.used += bytes;
    return this.budget.used <= this.budget.max;
  }

  private giveUp(): void {
    this.failed = true;
    this.budget.used -= this.bytes;
    this.bytes = 0;
    this.pendingBytes = 0;
    this.open = false;
    this.packed = Buffer.alloc(0);
    this.changes.clear();
    const stream = this.stream;
    this.stream = null;
    if (stream && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  private watch(): boolean {
    const stream = this.openWatch(this.resourceVersion);
    if (!stream) return (this.giveUp(), false);
    this.stream = stream;
    const startedAt = performance.now();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    stream.on("response", (headers) => {
      if (this.stream !== stream) return;
      // A refused watch (403, 410, a 5xx) is given up; the next read lists, which says why if it fails too.
      if (Number(headers[":status"]) !== 200) {
        this.refused = true;
        return this.giveUp();
      }
      this.open = true;
    });
    stream.on("data", (chunk: Buffer) => {
      if (this.stream !== stream) return;
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const line = pendingBytes ? Buffer.concat([...pending, piece], pendingBytes + piece.length) : piece;
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
        if (line.length > MAX_WATCH_LINE_BYTES || !this.apply(line)) return this.giveUp();
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > MAX_WATCH_LINE_BYTES) return this.giveUp();
      }
    });
    stream.on("error", () => {
      if (this.stream === stream) this.giveUp();
    });
    stream.on("close", () => {
      if (this.stream !== stream) return;
      this.stream = null;
      this.open = false;
      // The server ended the watch whole (its timeout, 30 to 60 minutes on an API server): resumed
      // from the last version seen, as a Reflector does. Anything else, or a watch that ends as soon
      // as it begins, is given up.
      const whole = stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && pendingBytes === 0;
      if (this.failed || !whole || performance.now() - startedAt < MIN_RESUMED_WATCH_MS || !this.watch()) this.giveUp();
    });
    return true;
  }

  /** Applies one event; false when it is not one this collection can trust (the watch is then given up). */
  private apply(line: Buffer): boolean {
    if (line.length === 0) return true;
    let event: { type?: unknown; object?: { metadata?: Meta } };
    try {
      event = JSON.parse(line.toString("utf8"));
    } catch {
      return false;
    }
    const object = event?.object;
    const version = object?.metadata?.resourceVersion;
    if (typeof version !== "string" || version === "") return false;
    if (event.type === "BOOKMARK") {
      this.resourceVersion = version;
      return true;
    }
    const key = keyOf(object);
    if (key === null) return false;
    if (event.type === "ADDED" || event.type === "MODIFIED") {
      this.changes.set(key, withoutManagedFields(object));
      this.pendingBytes += line.length;
      if (this.count + this.changes.size > this.limits.maxItems || !this.charge(line.length)) return false;
    } else if (event.type === "DELETED") this.changes.set(key, null);
    else return false; // ERROR (410 Gone among them), or a type no API server sends
    this.resourceVersion = version;
    return ++this.eventsSinceRead <= MAX_EVENTS_BETWEEN_READS;
  }
}

function keyOf(object: unknown): string | null {
  const meta = (object as { metadata?: Meta } | null)?.metadata;
  if (typeof meta?.name !== "string") return null;
  return `${typeof meta.namespace === "string" ? meta.namespace : ""}/${meta.name}`;
}

/** Server-side apply's bookkeeping, often larger than the object, is never read: not kept in memory. */
function withoutManagedFields(object: unknown): unknown {
  const meta = (object as { metadata?: Meta }).metadata;
  if (meta && "managedFields" in meta) delete meta.managedFields;
  return object;
}
