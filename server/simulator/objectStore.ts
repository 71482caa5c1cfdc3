import { alreadyExists, badRequest, conflict, notFound } from "./apiError";
import type { KindInfo } from "./kinds";
import { matchesLabels, type Requirement } from "./selectors";

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
};

export type WatchEvent = { type: "ADDED" | "MODIFIED" | "DELETED"; object: KubeObject; rv: number; kindKey: string };

export type StoreEnv = {
  now: () => Date;
  uid: () => string;
  /** Drops fields this cluster's API version does not have and fills defaults, returning what was dropped (as warnings). */
  prune?: (info: KindInfo, obj: KubeObject) => string[];
  /** How many events watches can resume from (default 1,000); older resourceVersions get 410. */
  eventLogSize?: number;
  /**
   * The watches, when their owner keeps them across rebuilds of the store (a generated cluster's
   * store dropped while unchanged and built again identically): open watches then do not pin it.
   */
  watchers?: Set<(event: WatchEvent) => void>;
};

export type WriteResult = { object: KubeObject; warnings: string[] };

/**
 * Checks an object about to be stored (with the stored one on an update) and throws to refuse it;
 * `warnings` are what `prune` dropped (a strict request refuses those).
 */
export type Admit = (info: KindInfo, next: KubeObject, old: KubeObject | undefined, warnings: string[]) => void;

const EVENT_LOG_SIZE = 1000;

export const kindKey = (info: KindInfo) => `${info.group}/${info.plural}`;
const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ""}/${name}`;

/** Everything but metadata and status: what a change to bumps `generation`. */
const specOf = (obj: KubeObject) => {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return JSON.stringify(rest);
};

/**
 * One simulated cluster's objects, with the API server's write rules: resourceVersion preconditions
 * (409 on a stale one), generation bumped on spec changes, status only through the status
 * subresource for kinds that have one, and a bounded log of events for watches to resume from.
 */
export class ObjectStore {
  private rv = 1000;
  /** The resourceVersion once seeding finished; unchanged means nothing was ever written. */
  private seededRv: number | null = null;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly log: WatchEvent[] = [];
  private readonly watchers: Set<(event: WatchEvent) => void>;

  constructor(private readonly env: StoreEnv) {
    this.watchers = env.watchers ?? new Set();
  }

  get resourceVersion(): number {
    return this.rv;
  }

  /** Marks the end of seeding. */
  sealSeed(): void {
    this.seededRv = this.rv;
  }

  /** True when nothing was written since seeding and no watch depends on this instance: the store can be rebuilt identically. */
  get disposable(): boolean {
    return this.seededRv === this.rv && (this.env.watchers !== undefined || this.watchers.size === 0);
  }

  /** The oldest resourceVersion a watch can resume from. */
  get oldestWatchable(): number {
    return this.log[0]?.rv ?? this.rv;
  }

  private bucket(info: KindInfo): Map<string, KubeObject> {
    const key = kindKey(info);
    let bucket = this.objects.get(key);
    if (!bucket) this.objects.set(key, (bucket = new Map()));
    return bucket;
  }

  private emit(type: WatchEvent["type"], info: KindInfo, object: KubeObject) {
    const event: WatchEvent = { type, object, rv: this.rv, kindKey: kindKey(info) };
    this.log.push(event);
    if (this.log.length > (this.env.eventLogSize ?? EVENT_LOG_SIZE)) this.log.shift();
    for (const watcher of this.watchers) watcher(event);
  }

  /** Loads an object as-is (from a fixture or an import), keeping its metadata; no event. */
  seed(info: KindInfo, obj: KubeObject): void {
    const copy = structuredClone(obj);
    const own = Number(copy.metadata.resourceVersion);
    if (Number.isSafeInteger(own) && own > 0) this.rv = Math.max(this.rv, own);
    else copy.metadata.resourceVersion = String(++this.rv);
    this.bucket(info).set(objectKey(info.namespaced ? copy.metadata.namespace : undefined, copy.metadata.name!), copy);
  }

  /**
   * Applies `fn` to every stored object of a kind, in place, with no new resourceVersion and no event:
   * what the API server's decoding does to objects read from storage after their schema changed.
   */
  reread(info: KindInfo, fn: (obj: KubeObject) => void): void {
    for (const obj of this.bucket(info).values()) fn(obj);
  }

  list(info: KindInfo, namespace: string | undefined, labels: Requirement[] = []): KubeObject[] {
    const items = [...this.bucket(info).values()].filter(
      (o) => (namespace === undefined || o.metadata.namespace === namespace) && matchesLabels(labels, o.metadata.labels),
    );
    // In key order by code point, as etcd keeps keys (and as the continue tokens compare them).
    const key = (o: KubeObject) => objectKey(o.metadata.namespace, o.metadata.name!);
    return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  get(info: KindInfo, namespace: string | undefined, name: string): KubeObject {
    const obj = this.bucket(info).get(objectKey(info.namespaced ? namespace : undefined, name));
    if (!obj) throw notFound(info.plural, info.group, name);
    return obj;
  }

  create(info: KindInfo, namespace: string | undefined, body: KubeObject, admit?: Admit): WriteResult {
    const obj = structuredClone(body);
    obj.metadata ??= {};
    if (!obj.metadata.name && obj.metadata.generateName) {
      obj.metadata.name = `${obj.metadata.generateName}${this.env.uid().replace(/-/g, "").slice(0, 5)}`;
    }
    const name = obj.metadata.name;
    if (!name) throw badRequest("metadata.name: Required value: name or generateName is required");
    if (info.namespaced) {
      if (obj.metadata.namespace && namespace && obj.metadata.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      obj.metadata.namespace = namespace ?? obj.metadata.namespace;
    } else delete obj.metadata.namespace;
    const bucket = this.bucket(info);
    const key = objectKey(obj.metadata.namespace, name);
    if (bucket.has(key)) throw alreadyExists(info.plural, info.group, name);
    const warnings = this.env.prune?.(info, obj) ?? [];
    obj.apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
    obj.kind = info.kind;
    admit?.(info, obj, undefined, warnings);
    obj.metadata.uid = this.env.uid();
    obj.metadata.creationTimestamp = this.env
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
    obj.metadata.generation = 1;
    obj.metadata.resourceVersion = String(++this.rv);
    bucket.set(key, obj);
    this.emit("ADDED", info, obj);
    return { object: obj, warnings };
  }

  /**
   * Replaces an object (PUT), or only its status when `subresource` is "status". A resourceVersion
   * in the body must be the current one. Kinds with a status subresource keep their status on a
   * main-resource write, and their spec on a status write. `admit` sees the object about to be
   * stored (the API server's validation) and may refuse it.
   */
  replace(
    info: KindInfo,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    subresource?: "status",
    admit?: Admit,
  ): WriteResult {
    const current = this.get(info, namespace, name);
    if (body.metadata?.name && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (body.metadata?.resourceVersion && body.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(info.plural, info.group, name);
    }
    let next: KubeObject;
    if (subresource === "status") {
      next = { ...structuredClone(current), status: structuredClone(body.status) };
    } else {
      next = structuredClone(body);
      next.metadata = {
        ...next.metadata,
        name,
        namespace: current.metadata.namespace,
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
      };
      if (!info.namespaced) delete next.metadata.namespace;
      if (info.status) next.status = structuredClone(current.status);
    }
    const warnings = this.env.prune?.(info, next) ?? [];
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    admit?.(info, next, current, warnings);
    next.metadata.generation = (current.metadata.generation ?? 1) + (specOf(next) !== specOf(current) ? 1 : 0);
    if (JSON.stringify(next) === JSON.stringify({ ...current, metadata: { ...current.metadata, generation: next.metadata.generation } })) {
      return { object: current, warnings }; // a no-op write keeps the resourceVersion, as the API server does
    }
    next.metadata.resourceVersion = String(++this.rv);
    this.bucket(info).set(objectKey(current.metadata.namespace, name), next);
    this.emit("MODIFIED", info, next);
    return { object: next, warnings };
  }

  delete(info: KindInfo, namespace: string | undefined, name: string, preconditionRv?: string): KubeObject {
    const current = this.get(info, namespace, name);
    if (preconditionRv && preconditionRv !== current.metadata.resourceVersion) throw conflict(info.plural, info.group, name);
    this.bucket(info).delete(objectKey(current.metadata.namespace, name));
    ++this.rv;
    const deleted = { ...current, metadata: { ...current.metadata, resourceVersion: String(this.rv) } };
    this.emit("DELETED", info, deleted);
    return deleted;
  }

  /** Events after `sinceRv` from the log (null when that is older than the log keeps), then live ones. */
  watch(sinceRv: number, onEvent: (event: WatchEvent) => void): { backlog: WatchEvent[] | null; stop: () => void } {
    const backlog = sinceRv < this.oldestWatchable - 1 ? null : this.log.filter((e) => e.rv > sinceRv);
    this.watchers.add(onEvent);
    return { backlog, stop: () => this.watchers.delete(onEvent) };
  }
}
