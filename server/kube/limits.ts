/**
 * How much Fleetskew reads from one cluster or hub before it stops and marks it with the reason
 * (docs/security.md, "A hostile cluster or hub"). A cluster's API server, or a hub, may be
 * compromised: nothing it answers may cost the console more than these bounds, whatever it sends.
 *
 * Sizes follow what a real API server can hold: etcd refuses a request over 1.5 MiB by default
 * (etcd server/embed/config.go DefaultMaxRequestBytes, which the Kubernetes API server keeps), so
 * one object, and one watch event, stays well under a few MiB. A page of a list holds at most
 * `limit` objects (500 for Fleetskew's lists; 16 for MachineConfigs, whose rendered configs are the
 * largest objects it reads).
 */
const MiB = 1024 * 1024;

/** The body of one answer (an object, one page of a list, discovery); larger is refused while it arrives. */
export const MAX_ANSWER_BYTES = 32 * MiB;
/**
 * The body of an answer that is one object (a GET by name: ClusterVersion, a ConfigMap, a Route).
 * etcd stores no object over 1.5 MiB (DefaultMaxRequestBytes above), so a larger answer cannot be a
 * real object: a ClusterVersion carrying a 30 MB condition message is refused while it arrives,
 * before it is held or parsed, as one watch event of that size is.
 */
export const MAX_OBJECT_BYTES = 4 * MiB;
/** Pages one list follows through `continue`; an answer that never stops paging ends here. */
export const MAX_LIST_PAGES = 500;
/** Objects one list gathers across its pages (the largest fleets Fleetskew reads pods of have tens of thousands). */
export const MAX_LIST_ITEMS = 100_000;
/** Bytes one list gathers across its pages. */
export const MAX_LIST_BYTES = 128 * MiB;
/**
 * Bytes of every answer one sweep of a cluster (or one sync of a hub) reads, each counted once it arrived:
 * the lists and objects it reads at once share it, so their sum, not each alone, is bounded.
 */
export const MAX_READ_BYTES = 128 * MiB;
/**
 * Bytes every sweep and sync in progress in one process have read together, each counted until its
 * sweep or sync ends. Three sources at their own limit fit; past it, the answer that crosses is
 * refused and its cluster or hub is read again on its next turn, so any number of hostile
 * clusters cost one process a bounded amount, and the collector's heap (768 MiB) keeps room for its work.
 */
export const MAX_PROCESS_READ_BYTES = 3 * MAX_READ_BYTES;
/** One line (one event) of a watch: a watch that sends a longer one is closed. */
export const MAX_WATCH_LINE_BYTES = 4 * MiB;
/** The body of an error answer (a Status), which is only read for its message. */
export const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Waits before a hub is listed again after its watches ended, as client-go's reflector does
 * (k8s.io/client-go/tools/cache/reflector.go, NewReflectorWithOptions:
 * wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)): from 0.8 s doubling to 30 s, each
 * wait stretched by up to as much again at random, and back to the start once the watches held 2 minutes.
 */
export const RELIST_BACKOFF = { initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, factor: 2, jitter: 1 } as const;

/** The wait before the `attempt`-th relist in a row (0: the first), with its jitter drawn from `random`. */
export function relistDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RELIST_BACKOFF.maxMs, RELIST_BACKOFF.initialMs * RELIST_BACKOFF.factor ** Math.max(0, attempt));
  return Math.round(base * (1 + RELIST_BACKOFF.jitter * random()));
}

/** Per list: how far it may go. Tests narrow them; production uses the defaults above. */
export type ListLimits = { maxPages: number; maxItems: number; maxBytes: number };
export const DEFAULT_LIST_LIMITS: ListLimits = { maxPages: MAX_LIST_PAGES, maxItems: MAX_LIST_ITEMS, maxBytes: MAX_LIST_BYTES };

/**
 * The bytes one sweep or sync has read from a cluster or hub, against MAX_READ_BYTES. The caller
 * starts it afresh for each sweep or sync (`restart`); every answer's bytes count as they arrive.
 */
export class ReadBudget {
  private used = 0;
  /** Of `used`, what counts against the process. */
  private shared_ = 0;
  /** Which limit the last refused `take` crossed. */
  private crossed: "own" | "process" = "own";
  constructor(
    readonly source: "cluster" | "hub",
    readonly max = MAX_READ_BYTES,
    private readonly shared: ProcessReadBudget = processReadBudget,
  ) {}
  /** Starts counting afresh: what the last sweep or sync read no longer counts, here or for the process. */
  restart(): void {
    this.shared.give(this.shared_);
    this.used = 0;
    this.shared_ = 0;
  }
  /** The sweep or sync is over: its bytes no longer count against the process. */
  release(): void {
    this.restart();
  }
  /** Counts `bytes`; false once this source's total or the process's is past its limit (the bytes stay counted until release). */
  take(bytes: number): boolean {
    this.used += bytes;
    if (this.used > this.max) {
      this.crossed = "own";
      return false;
    }
    this.shared_ += bytes;
    if (!this.shared.take(bytes)) {
      this.crossed = "process";
      return false;
    }
    return true;
  }
  get message(): string {
    if (this.crossed === "process")
      return `Fleetskew is already reading ${mib(this.shared.max)} from its clusters and hubs at once, the most one process holds; this ${this.source} is read again on its next turn`;
    return `the ${this.source}'s answers to one ${this.source === "hub" ? "sync" : "sweep"} go past ${mib(this.max)}, the most Fleetskew reads from one ${this.source} at a time`;
  }
}

/** What every sweep and sync in progress in this process have read together (MAX_PROCESS_READ_BYTES). */
export class ProcessReadBudget {
  private held = 0;
  constructor(readonly max = MAX_PROCESS_READ_BYTES) {}
  get bytes(): number {
    return this.held;
  }
  take(bytes: number): boolean {
    this.held += bytes;
    return this.held <= this.max;
  }
  give(bytes: number): void {
    this.held -= bytes;
  }
}
export const processReadBudget = new ProcessReadBudget();

const mib = (bytes: number) => (bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`);
export const describeBytes = mib;
