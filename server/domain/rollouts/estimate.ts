/**
 * How long a planned rollout takes, shown before it starts: each wave starts when the previous one
 * has finished and soaked (minSuccessTime), and no earlier than every one of its clusters' windows
 * lets a whole step run; each cluster's step is expected to take `stepMs`.
 */
import type { PlannedWave } from "./plan";
import { nextStart, windowTimeline, type MaintenanceWindow, type WindowState } from "./windows";

export type WaveEstimate = { name: string; startsAt: Date; endsAt: Date; waitsForWindow: boolean };
export type RolloutEstimate = { waves: WaveEstimate[]; finishesAt: Date; totalMs: number };

export function estimateRollout(
  waves: readonly PlannedWave[],
  options: { start: Date; stepMs: number; minSuccessMs: number; windowOf: (cluster: string) => MaintenanceWindow | null },
): RolloutEstimate {
  let at = options.start;
  const estimates: WaveEstimate[] = [];
  // Each window's schedule is read again only when a wave starts past the stretch it last found.
  const timelines = new Map<MaintenanceWindow, (at: Date) => WindowState>();
  const timelineOf = (window: MaintenanceWindow) => {
    let timeline = timelines.get(window);
    if (!timeline) timelines.set(window, (timeline = windowTimeline(window)));
    return timeline;
  };
  waves.forEach((wave, index) => {
    // Clusters share a handful of windows: each distinct window's next start is computed once per wave.
    const starts = new Map<MaintenanceWindow, Date>();
    let startsAt = at;
    for (const cluster of wave.clusters) {
      const window = options.windowOf(cluster);
      if (!window) continue;
      if (!starts.has(window)) starts.set(window, nextStart(window, at, options.stepMs, timelineOf(window)));
      const start = starts.get(window)!;
      if (start > startsAt) startsAt = start;
    }
    const endsAt = new Date(startsAt.getTime() + options.stepMs);
    estimates.push({ name: wave.name, startsAt, endsAt, waitsForWindow: startsAt > at });
    at = new Date(endsAt.getTime() + (index < waves.length - 1 ? options.minSuccessMs : 0));
  });
  return { waves: estimates, finishesAt: at, totalMs: at.getTime() - options.start.getTime() };
}
