import { pruneThrottles } from "../store/loginAttempts";
import { deleteExpiredSessions } from "../store/sessions";
import { LOGIN_WINDOW_MS, reportSignInWindows } from "./login";

/**
 * Removes expired sessions and sign-in throttles older than their window needs, and reports the
 * closed windows of failed sign-ins to the audit log (one event per address and window).
 */
export async function pruneAuthState(now: Date = new Date()): Promise<{ sessions: number; attempts: number; reported: number }> {
  const sessions = await deleteExpiredSessions(now);
  const attempts = await pruneThrottles(new Date(now.getTime() - 2 * LOGIN_WINDOW_MS));
  const reported = await reportSignInWindows(now);
  return { sessions, attempts, reported };
}
