/**
 * Maintenance windows: a cron schedule that opens the window, how long it stays open, and the IANA
 * time zone the schedule is read in (Rancher Fleet's experimental Schedule has the same three:
 * cron, duration, location — rancher/fleet). A cluster's write starts only while its window is open.
 */
import { CronExpressionParser } from "cron-parser";
import { parseDuration } from "./duration";
import { formatDuration } from "../../../lib/format";

export type MaintenanceWindowSpec = { schedule: string; duration: string; timeZone: string };
export type MaintenanceWindow = { schedule: string; durationMs: number; timeZone: string };

export type WindowCheck = { ok: true; window: MaintenanceWindow } | { ok: false; field: keyof MaintenanceWindowSpec; reason: string };

/** Whether `timeZone` is one the runtime knows (IANA names such as Europe/Paris, and UTC). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function checkWindow(spec: MaintenanceWindowSpec): WindowCheck {
  if (!isTimeZone(spec.timeZone)) {
    return { ok: false, field: "timeZone", reason: `"${spec.timeZone}" is not a time zone; use an IANA name such as Europe/Paris or UTC` };
  }
  const fields = spec.schedule.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      ok: false,
      field: "schedule",
      reason: `"${spec.schedule}" is not a cron schedule of five fields (minute hour day-of-month month day-of-week), such as "0 2 * * 6"`,
    };
  }
  try {
    CronExpressionParser.parse(spec.schedule, { tz: spec.timeZone, strict: false });
  } catch (error) {
    return { ok: false, field: "schedule", reason: `"${spec.schedule}" is not a valid cron schedule: ${(error as Error).message}` };
  }
  const duration = parseDuration(spec.duration);
  if (!duration.ok) return { ok: false, field: "duration", reason: duration.reason };
  if (duration.ms < 60_000) return { ok: false, field: "duration", reason: "a window must stay open at least one minute" };
  return { ok: true, window: { schedule: spec.schedule.trim(), durationMs: duration.ms, timeZone: spec.timeZone } };
}

export type WindowState = { open: true; closesAt: Date } | { open: false; opensAt: Date; closesAt: Date };

/** Whether the window is open at `at`, and when it closes, or next opens. */
export function windowAt(window: MaintenanceWindow, at: Date): WindowState {
  // The latest opening at or before `at` (cron-parser's prev() is strictly before its current date).
  const previous = CronExpressionParser.parse(window.schedule, { tz: window.timeZone, currentDate: new Date(at.getTime() + 1) })
    .prev()
    .toDate();
  const previousClose = new Date(previous.getTime() + window.durationMs);
  if (previousClose > at) return { open: true, closesAt: previousClose };
  const next = CronExpressionParser.parse(window.schedule, { tz: window.timeZone, currentDate: at }).next().toDate();
  return { open: false, opensAt: next, closesAt: new Date(next.getTime() + window.durationMs) };
}

/**
 * `windowAt` for one window, asked again and again (a plan's waves, one after the other): between two
 * openings of its schedule the answer follows from those two openings alone, so the schedule is read
 * again only once a time falls outside the stretch between the last two it found.
 */
export function windowTimeline(window: MaintenanceWindow): (at: Date) => WindowState {
  // The opening at or before the last time asked, and the next one after it.
  let stretch: { previous: number; next: number } | null = null;
  return (at) => {
    const t = at.getTime();
    if (!stretch || t < stretch.previous || t >= stretch.next) {
      const previous = CronExpressionParser.parse(window.schedule, { tz: window.timeZone, currentDate: new Date(t + 1) })
        .prev()
        .toDate()
        .getTime();
      const next = CronExpressionParser.parse(window.schedule, { tz: window.timeZone, currentDate: at }).next().toDate().getTime();
      stretch = { previous, next };
    }
    const previousClose = stretch.previous + window.durationMs;
    if (previousClose > t) return { open: true, closesAt: new Date(previousClose) };
    return { open: false, opensAt: new Date(stretch.next), closesAt: new Date(stretch.next + window.durationMs) };
  };
}

/**
 * When a step of `stepMs` can start at or after `at` and end before its window closes: now if the
 * window is open long enough, else the next opening. A step longer than the window never fits,
 * which the plan refuses before it is saved (`checkWindowFits`). `stateAt` answers as `windowAt` does
 * (a `windowTimeline` of the window, when it is asked many times).
 */
export function nextStart(
  window: MaintenanceWindow,
  at: Date,
  stepMs: number,
  stateAt: (at: Date) => WindowState = (probe) => windowAt(window, probe),
): Date {
  let probe = at;
  for (let i = 0; i < 1_000; i++) {
    const state = stateAt(probe);
    const start = state.open ? probe : state.opensAt;
    if (start.getTime() + stepMs <= state.closesAt.getTime()) return start;
    probe = new Date(state.closesAt.getTime() + 1);
  }
  return probe;
}

export function checkWindowFits(window: MaintenanceWindow, stepMs: number): string | null {
  return stepMs > window.durationMs
    ? `the window is open for ${formatDuration(window.durationMs)}, shorter than a cluster's expected step (${formatDuration(stepMs)})`
    : null;
}

/** A rollout's windows: one for every cluster, and one per value of a label (each site its own night). */
export type RolloutWindows = { default?: MaintenanceWindow; label?: string; byValue?: Record<string, MaintenanceWindow> };

/** The window a cluster's writes must start in: its label value's own, else the plan's, else none. */
export function windowForLabels(windows: RolloutWindows | undefined, labels: Record<string, string>): MaintenanceWindow | null {
  if (!windows) return null;
  const value = windows.label ? labels[windows.label] : undefined;
  return (value !== undefined ? windows.byValue?.[value] : undefined) ?? windows.default ?? null;
}
