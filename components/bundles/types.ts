/** The shapes /api/v1 returns for bundles (kept here: components import nothing from server/). */
export type Me = { id: string; username: string; role: "viewer" | "technician" | "approver" | "admin" };

export type VettedBundle = { digest: string; note: string; vettedBy: string; vettedAt: string };

export type Bundle = {
  digest: string;
  releaseVersion: string;
  releaseImage: string;
  imageCount: number;
  totalBytes: number;
  uploadedBy: string;
  uploadedAt: string;
  vetted?: VettedBundle;
};

export type PrecheckStatus = "pass" | "warn" | "fail";
export type Precheck = {
  id: string;
  /** This finding's identity; a warning is confirmed by its key. */
  key: string;
  pool: string | null;
  title: string;
  status: PrecheckStatus;
  detail: string;
  remedy: string | null;
  items: string[];
};

export type PrecheckResult = {
  cluster: string;
  bundle: { digest: string; release: string; images: number; size: string };
  checks: Precheck[];
  canApply: boolean;
  needsConfirmation: boolean;
};

export type ApplicationState = "applying" | "preloading" | "upgrading" | "upgraded" | "unpinning" | "unpinned";

export type Application = {
  id: string;
  bundleDigest: string;
  releaseVersion: string;
  releaseImage: string;
  cluster: string;
  state: ApplicationState;
  pools: { pool: string; set: string; labels: Record<string, string> }[];
  confirmedWarnings: string[];
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  lastError: string | null;
  upgradeStartedBy: string | null;
  upgradeStartedAt: string | null;
  overrideReason: string | null;
  upgradedAt: string | null;
  unpinnedAt: string | null;
};

export type NodeProgress = {
  node: string;
  pool: string;
  state: "waiting" | "pulling" | "done" | "failed";
  label: string;
  error: string | null;
  remedy: string | null;
};

export type ReadinessCheck = {
  id: string;
  title: string;
  status: "pass" | "warn" | "fail" | "unknown";
  detail: string;
  remediation: string | null;
};

export type ApplicationProgress = {
  application: Application;
  manifest: { images: number; size: string; release: string; releaseImage: string };
  source: "live" | "stored";
  observedAt: string;
  sourceNote: string | null;
  nodes: NodeProgress[];
  summary: { total: number; done: number; pulling: number; waiting: number; failed: number; allDone: boolean };
  missingSets: string[];
  readiness: { target: string; status: "pass" | "warn" | "fail" | "unknown"; checks: ReadinessCheck[] } | null;
  upgrade: { current: string | null; desired: string | null; completed: boolean; progressing: string | null; refused: string | null };
  blockers: string[];
  /** Every blocker is a failing readiness check, which an admin may override with a written reason. */
  overridable: boolean;
};

/** What each state means to the person on site. */
export const STATE_WORDS: Record<ApplicationState, string> = {
  applying: "Creating the image sets",
  preloading: "Pre-loading images",
  upgrading: "Upgrading",
  upgraded: "Upgraded",
  unpinning: "Unpinning the images",
  unpinned: "Images unpinned",
};

export const can = (me: Me, roles: Me["role"][]) => me.role === "admin" || roles.includes(me.role);
