import { createHash, randomBytes } from "node:crypto";
import os from "node:os";
import { openCredentials } from "../clusters/registration";
import { MCO_SKEW_LIMITS, type SkewLimitEntry } from "../domain/skew";
import { invalidateFleetList } from "../fleet/fleetList";
import { ClusterClient, MAX_WATCHING_CLIENTS } from "../kube/client";
import { OPTIONAL_PARTS, readClusterObjects, type ClusterObjects } from "../kube/readers";
import { loadCatalog, recordSweepFailure, recordSweepSuccess, type SweepOutcome } from "../store/history";
import { UnchangedSweeps } from "./unchangedSweeps";
import { proxiedFailure } from "../domain/hubEligibility";
import { addWorkerStats, claimDueClusters, countDirectClusters, ensureSchedules, type ClaimedCluster } from "../store/sweeps";
import { directShardOf, holdShards, leaveShards } from "../store/shards";
import { digestSnapshot, evaluationInputOf, FleetCatalog } from "./evaluate";
import { normalizeSnapshot } from "./normalize";
import { PreviewInputsKeeper } from "./previewInputs";
import { type ClientOptions, configuredClientOptions } from "../kube/clientConfig";

/**
 * The collector: sweeps due clusters with bounded concurrency. Any number of collectors (the web
 * process and `npm run collector` workers) share the fleet through leases in Postgres. One cluster's
 * failure is recorded on that cluster and never delays the others.
 */
export type CollectorOptions = {
  worker: string;
  intervalMs: number;
  concurrency: number;
  clusterTimeoutMs: number;
  client: ClientOptions;
  limits: () => SkewLimitEntry[];
  now: () => Date;
  /** How long an idle collector waits before looking for due clusters again. */
  pollMs: number;
  /** Called as each sweep finishes (progress reports, the benchmark's throughput). */
  onSweep?: (result: SweepResult) => void;
  /**
   * With it, the running collector sweeps only the shards it holds (a hub's clusters, or a share of
   * the directly registered ones; server/store/shards.ts), renewing them every third of this lease. Without it,
   * it sweeps the whole fleet (tests and the benchmark, which call runOnce).
   */
  shardLeaseMs?: number;
};

export type SweepResult = {
  cluster: string;
  outcome: "ok" | "failed";
  stored: SweepOutcome;
  error?: string;
  durationMs: number;
  /** Where a successful sweep's time went: reading the cluster, digesting the objects, storing the result. */
  phases?: { readMs: number; digestMs: number; storeMs: number };
};

export const workerName = (role: string) => `${role}:${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

/** Failed clusters are retried sooner than the interval at first, then less and less often. */
export function backoffMs(failures: number, intervalMs: number): number {
  const base = Math.min(intervalMs, 30_000);
  return Math.min(base * 2 ** Math.max(0, failures), Math.max(intervalMs, 30 * 60_000));
}

/**
 * How many clusters a process keeps watched when the configuration does not say (docs/architecture.md,
 * "Watched reads"): each costs about 370 KB of resident memory, a connection with some twenty streams
 * held open. A collector watches only while its shard's directly read clusters fit within it.
 */
const DEFAULT_WATCH_CLUSTERS = 1_000;

/** Spreads the next sweeps by ±10% so a fleet registered at once does not stay in lockstep. */
const jitter = (ms: number) => Math.round(ms * (0.9 + Math.random() * 0.2));

type Failure = { status: "unreachable" | "unauthorized" | "stale"; error: string };

/**
 * Whether a read is good enough to become history. Forbidden or missing kinds are part of the
 * picture (recorded as problems); anything else that failed would make a partial snapshot look like
 * a change (MachineSets "disappearing"), so the cluster is marked stale and its last state kept.
 */
export function judgeRead(objects: ClusterObjects): Failure | null {
  const parts = Object.entries(objects).filter(([part]) => !OPTIONAL_PARTS.has(part));
  const errors = parts.flatMap(([part, r]) => (r.status === "error" ? [{ part, error: r.error }] : []));
  if (errors.some((e) => e.error.kind === "unauthorized"))
    return { status: "unauthorized", error: errors.find((e) => e.error.kind === "unauthorized")!.error.message };
  const network = errors.filter((e) => e.error.kind === "unreachable" || e.error.kind === "timeout");
  if (network.length === parts.length) return { status: "unreachable", error: network[0]!.error.message };
  // Nothing readable at all is no sweep, whatever each refusal says (a hub's permission not applied, a token's rights taken away).
  if (errors.length === parts.length && errors.length > 0)
    return { status: "stale", error: `${errors[0]!.part}: ${errors[0]!.error.message}` };
  const serious = errors.filter((e) => e.error.kind !== "forbidden");
  if (serious.length) return { status: "stale", error: `${serious[0]!.part}: ${serious[0]!.error.message}` };
  for (const [part, r] of parts)
    if (r.status === "ok" && "skipped" in r && r.skipped.length)
      return { status: "stale", error: `${part}: ${r.skipped[0]!.name} has an unexpected shape (${r.skipped[0]!.problem})` };
  return null;
}

class Deadline extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Deadline(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export class Collector {
  private readonly catalog = new FleetCatalog();
  private readonly previewInputs = new PreviewInputsKeeper();
  private catalogLoadedAt = 0;
  private readonly clients = new Map<
    string,
    {
      fingerprint: string;
      client: ClusterClient;
      clusterId: string;
      shard: string;
      usedAt: number;
      /** The last stored sweep's evaluation input (./evaluate.ts evaluationInputOf) and the snapshot hash it gave. */
      evaluated?: { input: string; snapshotHash: string };
    }
  >();
  private idleClientsClosedAt = 0;
  private running = false;
  /** The shards held, when sharded (null: the whole fleet), and when the database last confirmed them. */
  private shards: string[] | null = null;
  private shardsConfirmedAt = 0;
  private renewal: NodeJS.Timeout | undefined;
  /** Clusters being swept now: their clients stay open until the sweep ends, whatever happens to their shard. */
  private readonly sweeping = new Set<string>();
  /** Unchanged sweeps that end together are stored together. */
  private unchangedSweeps?: UnchangedSweeps;
  private get unchanged(): UnchangedSweeps {
    return (this.unchangedSweeps ??= new UnchangedSweeps(this.options.worker));
  }
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  readonly stats = { sweeps: 0, errors: 0, durationMs: 0 };
  /** What the clients are made with: their watch limit is `watchAllowance`, asked at each sweep. */
  private readonly clientOptions: ClientOptions;
  /**
   * How many clusters the clients may keep watched now: the configured limit while every cluster of
   * this collector's shards that it reads directly fits within it, else none. Watching part of a
   * larger shard saves little CPU (the rest is read in full) and costs each watched cluster some
   * 370 KB of resident memory (docs/benchmarks.md, "What a collector holds between sweeps").
   */
  private watchAllowance = 0;
  private watchAllowanceAt = 0;

  constructor(readonly options: CollectorOptions) {
    const limit = options.client.watchClusters;
    this.clientOptions =
      typeof limit === "number" && limit > 0 ? { ...options.client, watchClusters: () => this.watchAllowance } : options.client;
  }

  /** Counts the shards' directly read clusters again, once a minute or when the shards changed. */
  private async refreshWatchAllowance(): Promise<void> {
    const limit = this.options.client.watchClusters;
    if (typeof limit !== "number" || limit <= 0 || Date.now() - this.watchAllowanceAt < 60_000) return;
    const direct = await countDirectClusters(this.heldShards());
    const allowance = direct <= Math.min(limit, MAX_WATCHING_CLIENTS) ? limit : 0;
    // Outgrown: the watches go now, not at each cluster's next sweep (one being swept lets go at its next).
    if (this.watchAllowance > 0 && allowance === 0)
      for (const [name, entry] of this.clients) if (!this.sweeping.has(name)) entry.client.unwatch();
    this.watchAllowance = allowance;
    this.watchAllowanceAt = Date.now();
  }

  private async refreshCatalog(): Promise<void> {
    if (Date.now() - this.catalogLoadedAt < 60_000) return;
    this.catalog.add(await loadCatalog());
    this.catalogLoadedAt = Date.now();
  }

  private async clientFor(claim: ClaimedCluster): Promise<ClusterClient> {
    const fingerprint = createHash("sha1").update(claim.sealedCredentials).digest("hex");
    const cached = this.clients.get(claim.name);
    if (cached?.fingerprint === fingerprint) {
      cached.usedAt = Date.now();
      return cached.client;
    }
    const client = new ClusterClient(await openCredentials(claim.name, claim.sealedCredentials), this.clientOptions);
    // A bounded cache (a client is a few KiB; a sweep through a fleet larger than the cache would
    // rebuild every client): beyond it, clients and their keep-alive pools are rebuilt on demand.
    if (cached) cached.client.close();
    else if (this.clients.size >= 20_000) {
      const [oldest, entry] = this.clients.entries().next().value!;
      entry.client.close();
      this.clients.delete(oldest);
    }
    this.clients.set(claim.name, {
      fingerprint,
      client,
      clusterId: claim.clusterId,
      shard: claim.hubId ?? directShardOf(claim.clusterId),
      usedAt: Date.now(),
    });
    return client;
  }

  /**
   * Closes the clients of clusters not swept for three intervals (at least ten minutes): a cluster
   * unregistered, or one whose sweeps now fail before they read. A client that keeps watches holds
   * a connection to its cluster; nothing should stay connected to a cluster Fleetskew no longer reads.
   */
  private closeIdleClients(): void {
    const now = Date.now();
    if (now - this.idleClientsClosedAt < 60_000) return;
    this.idleClientsClosedAt = now;
    const idleMs = Math.max(3 * this.options.intervalMs, 10 * 60_000);
    for (const [name, entry] of this.clients) {
      if (now - entry.usedAt < idleMs || this.sweeping.has(name)) continue;
      entry.client.close();
      this.clients.delete(name);
    }
  }

  /** Sweeps of one hub's clusters in progress here, and those waiting for a slot (the hub's concurrency cap). */
  private readonly hubSlots = new Map<string, { busy: number; waiting: (() => void)[] }>();

  private async hubSlot(claim: ClaimedCluster): Promise<() => void> {
    if (!claim.hubId) return () => undefined;
    const slots = this.hubSlots.get(claim.hubId) ?? { busy: 0, waiting: [] };
    this.hubSlots.set(claim.hubId, slots);
    if (slots.busy >= (claim.hubConcurrency ?? 20)) await new Promise<void>((r) => slots.waiting.push(r));
    slots.busy++;
    return () => {
      slots.busy--;
      slots.waiting.shift()?.();
    };
  }

  /** Reads, digests and stores one claimed cluster. Never throws: failures are the cluster's. */
  async sweep(claim: ClaimedCluster): Promise<SweepResult> {
    this.sweeping.add(claim.name);
    const release = await this.hubSlot(claim);
    const started = performance.now();
    try {
      return await this.sweepNow(claim);
    } catch (error) {
      // Recording the outcome itself failed (the database, under load): nothing was stored, the lease
      // expires and the cluster is swept again; the rest of the pass goes on.
      const message = error instanceof Error ? error.message : String(error);
      return { cluster: claim.name, outcome: "failed", stored: "lease-lost", error: message, durationMs: performance.now() - started };
    } finally {
      release();
      this.sweeping.delete(claim.name);
      // Its shard was given up while it was being swept: what was kept for it goes now.
      const shard = claim.hubId ?? directShardOf(claim.clusterId);
      if (this.shards && !this.shards.includes(shard)) this.forget(new Set([shard]));
    }
  }

  private async sweepNow(claim: ClaimedCluster): Promise<SweepResult> {
    const started = performance.now();
    const at = this.options.now();
    const elapsed = () => performance.now() - started;
    const fail = async (failure: Failure): Promise<SweepResult> => {
      // Through a hub's cluster-proxy, 401, 403 and 502 mean something about the hub.
      if (claim.hubId) failure = { ...failure, error: proxiedFailure(failure.error, claim.hubAccess ?? undefined) };
      const nextSweepAt = new Date(at.getTime() + jitter(backoffMs(claim.failures, this.options.intervalMs)));
      const stored = await recordSweepFailure({
        clusterId: claim.clusterId,
        worker: this.options.worker,
        at,
        ...failure,
        durationMs: elapsed(),
        nextSweepAt,
      });
      return { cluster: claim.name, outcome: "failed", stored, error: `${failure.status}: ${failure.error}`, durationMs: elapsed() };
    };
    let client: ClusterClient | undefined;
    try {
      client = await this.clientFor(claim);
      client.startRead();
      const objects = await withDeadline(readClusterObjects(client), this.options.clusterTimeoutMs, `reading ${claim.name}`);
      const readMs = elapsed();
      const failure = judgeRead(objects);
      if (failure) return await fail(failure);
      const limits = this.options.limits();
      const snapshot = normalizeSnapshot(objects, this.catalog);
      const input = evaluationInputOf(snapshot, limits);
      const entry = this.clients.get(claim.name);
      // Most steady sweeps read what the last one did: its hash is known without evaluating again.
      const known = entry?.evaluated?.input === input ? entry.evaluated.snapshotHash : null;
      let d = known === null ? digestSnapshot(snapshot, limits, at) : null;
      const snapshotHash = known ?? d!.snapshotHash;
      const digestMs = elapsed() - readMs;
      // Only images this process has not seen stored are written (the catalog is shared through the database).
      const newImages = this.catalog.unknown(snapshot.streamImages);
      const nextSweepAt = new Date(at.getTime() + jitter(this.options.intervalMs));
      const unchanged =
        newImages.length === 0 &&
        (await this.unchanged.record({
          clusterId: claim.clusterId,
          worker: this.options.worker,
          at,
          snapshotHash,
          durationMs: elapsed(),
          nextSweepAt,
        }));
      if (!unchanged) d ??= digestSnapshot(snapshot, limits, at);
      const stored = unchanged
        ? "unchanged"
        : await recordSweepSuccess({
            clusterId: claim.clusterId,
            clusterName: claim.name,
            worker: this.options.worker,
            at,
            snapshot: d!.snapshot,
            snapshotHash: d!.snapshotHash,
            facts: d!.facts,
            summary: d!.summary,
            backfill: d!.backfill(),
            catalog: newImages,
            platform: d!.snapshot.platform,
            durationMs: elapsed(),
            nextSweepAt,
          });
      const durationMs = elapsed();
      if (stored !== "lease-lost") {
        this.catalog.add(newImages);
        if (entry) entry.evaluated = { input, snapshotHash };
      }
      // Something a person would see changed: the fleet list of this process shows it at once.
      if (stored === "written") invalidateFleetList("sweep");
      // After the sweep is stored: what a preview needs, read again only when it changed.
      if (stored !== "lease-lost") await this.previewInputs.keep(claim.clusterId, client, objects, at).catch(() => undefined);
      return {
        cluster: claim.name,
        outcome: "ok",
        stored,
        durationMs,
        phases: { readMs, digestMs, storeMs: durationMs - readMs - digestMs },
      };
    } catch (error) {
      if (error instanceof Deadline) {
        // Given up now, not once the failure is stored: the reads still queued are never sent.
        client?.endRead();
        return fail({ status: "unreachable", error: error.message });
      }
      // Our own bug or the database: say so on the cluster rather than stopping the collector.
      const message = error instanceof Error ? error.message : String(error);
      try {
        return await fail({ status: "stale", error: `could not be processed: ${message}` });
      } catch {
        return { cluster: claim.name, outcome: "failed", stored: "lease-lost", error: message, durationMs: elapsed() };
      }
    } finally {
      // The sweep's objects are digested and dropped: its bytes no longer count against the process.
      client?.endRead();
    }
  }

  /** Claims and sweeps due clusters until none is due; used by tests, the benchmark and the loop. */
  async runOnce(): Promise<SweepResult[]> {
    await ensureSchedules();
    await this.refreshCatalog();
    await this.refreshWatchAllowance();
    this.closeIdleClients();
    const results: SweepResult[] = [];
    const inFlight = new Set<Promise<void>>();
    let exhausted = false;
    while (!exhausted || inFlight.size) {
      if (!exhausted && inFlight.size < this.options.concurrency) {
        const room = this.options.concurrency - inFlight.size;
        const claims = await claimDueClusters(this.options.worker, room, this.leaseMs(), this.options.now(), this.heldShards());
        if (claims.length < room) exhausted = true;
        for (const claim of claims) {
          const p: Promise<void> = this.sweep(claim).then((r) => {
            results.push(r);
            this.options.onSweep?.(r);
            this.stats.sweeps++;
            if (r.outcome === "failed") this.stats.errors++;
            this.stats.durationMs += r.durationMs;
            inFlight.delete(p);
          });
          inFlight.add(p);
        }
        if (claims.length) continue;
      }
      if (inFlight.size) await Promise.race(inFlight);
    }
    return results;
  }

  /**
   * How long a claimed cluster stays this worker's: twice the sweep's deadline (reading, then
   * storing) and a margin that grows with it, up to 30 s. A worker killed mid-sweep holds its
   * clusters no longer than this; another worker then sweeps them.
   */
  leaseMs(): number {
    return this.options.clusterTimeoutMs * 2 + Math.min(30_000, this.options.clusterTimeoutMs);
  }

  /**
   * The shards to claim from: those held, as long as the last renewal is younger than the lease (a
   * collector that cannot reach the database to renew must assume the others took them); null when
   * not sharded.
   */
  private heldShards(): string[] | null {
    const leaseMs = this.options.shardLeaseMs;
    if (leaseMs === undefined) return null;
    if (!this.shards || Date.now() - this.shardsConfirmedAt > leaseMs) return [];
    return this.shards;
  }

  /** One renewal: keeps the shards held, forgets what belonged to shards given up, and starts on new ones at once. */
  async renewShards(): Promise<void> {
    const leaseMs = this.options.shardLeaseMs;
    if (leaseMs === undefined) return;
    const asked = Date.now();
    const holding = await holdShards(this.options.worker, leaseMs);
    this.shards = holding.shards;
    this.shardsConfirmedAt = asked;
    if (holding.released.length) this.forget(new Set(holding.released));
    if (holding.released.length || holding.taken.length) this.watchAllowanceAt = 0;
    if (holding.taken.length) this.wake?.();
  }

  /**
   * Drops the clients (and their connection pools) and the preview digests of clusters in shards
   * given up; a cluster still being swept keeps its client until its sweep ends (see `sweep`).
   */
  private forget(shards: ReadonlySet<string>): void {
    for (const [name, entry] of this.clients) {
      if (!shards.has(entry.shard) || this.sweeping.has(name)) continue;
      entry.client.close();
      this.clients.delete(name);
      this.previewInputs.forget(entry.clusterId);
    }
  }

  start(onError: (error: unknown) => void = (e) => console.error("fleetskew collector:", e)): void {
    if (this.running) return;
    this.running = true;
    const leaseMs = this.options.shardLeaseMs;
    const renew = async (): Promise<void> => {
      await this.renewShards().catch(onError);
      if (!this.running || leaseMs === undefined) return;
      this.renewal = setTimeout(() => void renew(), Math.max(200, leaseMs / 3));
      this.renewal.unref?.();
    };
    this.loop = (async () => {
      // The first shards are known before the first claim, so a collector starts sweeping at once.
      if (leaseMs !== undefined) await renew();
      while (this.running) {
        try {
          const before = { ...this.stats };
          await this.runOnce();
          const delta = {
            sweeps: this.stats.sweeps - before.sweeps,
            errors: this.stats.errors - before.errors,
            durationMs: this.stats.durationMs - before.durationMs,
          };
          if (delta.sweeps) await addWorkerStats(this.options.worker, delta);
        } catch (error) {
          onError(error);
        }
        if (!this.running) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs);
          timer.unref?.();
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  /** Stops after the sweeps in flight are stored: nothing is left half-done. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.renewal);
    this.wake?.();
    await this.loop;
    // Nothing stays connected to the clusters (watches) once the collector stops.
    for (const entry of this.clients.values()) entry.client.close();
    this.clients.clear();
    // Given back at once, so another collector takes them at its next renewal, not after the lease.
    if (this.options.shardLeaseMs !== undefined) await leaveShards(this.options.worker).catch(() => undefined);
  }
}

export function defaultCollectorOptions(
  config: {
    collector: { intervalMs: number; concurrency: number; clusterTimeoutMs: number };
    kube: { timeoutMs: number; retries: number; watchClusters?: number };
  },
  worker: string,
  limits: () => SkewLimitEntry[] = () => MCO_SKEW_LIMITS,
): CollectorOptions {
  return {
    worker,
    intervalMs: config.collector.intervalMs,
    concurrency: config.collector.concurrency,
    clusterTimeoutMs: config.collector.clusterTimeoutMs,
    // The collector's clients live from sweep to sweep: they keep the rarely changing kinds watched.
    client: { ...configuredClientOptions(config.kube), watchClusters: config.kube.watchClusters ?? DEFAULT_WATCH_CLUSTERS },
    limits,
    now: () => new Date(),
    pollMs: Math.min(5_000, config.collector.intervalMs),
  };
}
