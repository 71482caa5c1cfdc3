/** Words and colours for a hub cluster's eligibility and state, as the hub page shows them. */
export const ELIGIBILITY: Record<string, { label: string; className: string }> = {
  eligible: { label: "Followed", className: "bg-ok/10 text-ok" },
  "not-openshift": { label: "Not OpenShift", className: "bg-muted/10 text-muted" },
  "hosted-control-plane": { label: "Hosted control plane", className: "bg-muted/10 text-muted" },
  unavailable: { label: "Unavailable", className: "bg-danger/10 text-danger" },
  "proxy-addon-unavailable": { label: "Proxy add-on unavailable", className: "bg-warn/10 text-warn" },
  "permissions-pending": { label: "Permissions pending", className: "bg-warn/10 text-warn" },
  "name-taken": { label: "Name taken", className: "bg-danger/10 text-danger" },
  malformed: { label: "Malformed on the hub", className: "bg-danger/10 text-danger" },
};

export const STATE: Record<string, string> = {
  available: "Available",
  "lease-expired": "Offline (lease expired)",
  removed: "Removed from the hub",
};
