import { pruneLoginAttempts } from "../store/loginAttempts";
import { deleteExpiredSessions } from "../store/sessions";
import { LOGIN_WINDOW_MS } from "./login";

/** Removes expired sessions and sign-in attempts older than the rate-limit window needs. */
export async function pruneAuthState(now: Date = new Date()): Promise<{ sessions: number; attempts: number }> {
  const sessions = await deleteExpiredSessions(now);
  const attempts = await pruneLoginAttempts(new Date(now.getTime() - 2 * LOGIN_WINDOW_MS));
  return { sessions, attempts };
}
