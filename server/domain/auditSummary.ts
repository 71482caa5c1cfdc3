/**
 * One sentence for an audit event, for the audit page and its CSV export. Writers that know
 * better pass their own summary; this covers the rest from the action and its target.
 */
const VERBS: Record<string, string> = {
  "session.login": "signed in",
  "session.logout": "signed out",
  "user.create": "created user",
  "user.update": "changed user",
  "cluster.register": "registered cluster",
  "cluster.update": "changed cluster",
  "cluster.remove": "removed cluster",
  "cluster.import": "imported offline cluster",
  "settings.update": "changed setting",
  "token.create": "created API token",
  "token.revoke": "revoked API token",
  "token.use": "used API token from a new address",
  "service-account.create": "created service account",
  "service-account.disable": "disabled service account",
};

export function auditSummary(event: { action: string; targetType?: string | null; targetId?: string | null; outcome?: string }): string {
  if (event.action === "session.login" && event.outcome === "failure") return "failed to sign in";
  if (event.action === "session.login" && event.outcome === "denied") return "was refused sign-in (too many attempts)";
  const verb = VERBS[event.action] ?? event.action;
  const target = event.targetId && !event.action.startsWith("session.") ? ` ${event.targetId}` : "";
  const outcome = event.outcome && event.outcome !== "success" ? ` (${event.outcome})` : "";
  return `${verb}${target}${outcome}`;
}
