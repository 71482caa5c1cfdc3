import { recordUnchangedSweeps, type UnchangedSweep } from "../store/history";

/*
 * Most steady sweeps find their cluster as it was, and all they store is three timestamps. Sweeps
 * that end within a few milliseconds of each other share one statement (`recordUnchangedSweeps`):
 * at a hundred sweeps a second, one round trip and one transaction for many, not one for each.
 */

/** How long a sweep's record waits for others to join it, and how many share one statement. */
export const GATHER_MS = 5;
export const MAX_BATCH = 100;

type Waiting = { sweep: UnchangedSweep; settle: (recorded: boolean) => void; fail: (error: unknown) => void };

export class UnchangedSweeps {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly worker: string) {}

  /** True once the sweep is recorded as unchanged; false when the snapshot differs or the lease is gone. */
  record(sweep: UnchangedSweep): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.waiting.push({ sweep, settle, fail });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    recordUnchangedSweeps(
      this.worker,
      batch.map((w) => w.sweep),
    ).then(
      (recorded) => batch.forEach((w) => w.settle(recorded.has(w.sweep.clusterId))),
      (error) => batch.forEach((w) => w.fail(error)),
    );
  }
}
