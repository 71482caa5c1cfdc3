/** What a kind is asked by (client.ts KindRef), and the error its request failed with (a KubeError). */
type KindRef = { group: string; version: string; plural: string };
type KubeError = Error & { kind: string };

/*
 * Which kinds a cluster answered "not served" (a 404 without an object's name: the API server has no
 * such resource) and under which release. What a cluster serves changes only with what it runs: an
 * update, a feature set turned on, an operator installed. A sweep therefore asks again only when the
 * release or feature set it reads differs from the one the answer came under, or after FORGET_AFTER_MS
 * (an operator added between updates). On a fleet of older releases this saves about a fifth of a
 * steady sweep's requests: the OS image streams, the registry-less install, on-cluster layering and
 * node-state kinds of newer releases (docs/benchmarks.md).
 */

/** How long a "not served" answer is trusted without the release changing. */
export const FORGET_AFTER_MS = 60 * 60_000;

const kindKey = (ref: KindRef) => `${ref.group}/${ref.version}/${ref.plural}`;

export class NotServedMemo {
  /** The answer each kind got, thrown again as it was (making an error costs its stack trace). */
  private readonly kinds = new Map<string, KubeError>();
  /** The release the remembered answers came under; "" when none is known. */
  private release = "";
  private since = 0;
  /** Whether this sweep answered a kind from memory instead of asking. */
  private used = false;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly forgetAfterMs = FORGET_AFTER_MS,
  ) {}

  /** Starts a sweep: past FORGET_AFTER_MS, every kind is asked again. */
  startSweep(): void {
    this.used = false;
    if (this.now() - this.since > this.forgetAfterMs) this.forget();
  }

  /** The remembered answer for `ref`, as the error the request would have failed with; null to ask. */
  known(ref: KindRef): KubeError | null {
    const answer = this.release ? this.kinds.get(kindKey(ref)) : undefined;
    if (answer === undefined) return null;
    this.used = true;
    return answer;
  }

  remember(ref: KindRef, error: KubeError): void {
    if (error.kind !== "not-served") return;
    // Kept for an hour: its stack trace goes, for its first line. Until read, a trace holds each
    // frame's function and receiver, and with them what they held (some 3 KB a cluster at 10,000).
    error.stack = `${error.name}: ${error.message}`;
    this.kinds.set(kindKey(ref), error);
  }

  /**
   * Ends a sweep that found `release` (its version and feature set; "" when it could not tell, or
   * while an update is under way and kinds appear as the update applies them). False when this sweep
   * answered from memory under another release: its answers must be read again by asking.
   */
  confirm(release: string): boolean {
    if (release && release === this.release) return true;
    const stale = this.used;
    const learned = [...this.kinds.entries()];
    this.forget();
    // What this sweep asked and was told holds for the release it found, if it found one.
    if (release && !stale) {
      for (const [kind, answer] of learned) this.kinds.set(kind, answer);
      this.release = release;
    }
    return !stale;
  }

  private forget(): void {
    this.kinds.clear();
    this.release = "";
    this.since = this.now();
    this.used = false;
  }
}
