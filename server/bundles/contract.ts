/**
 * What the bundle endpoints of /api/v1 take and send, defined once: route handlers and the feature
 * functions use these, components import them with `import type`.
 */
import type { z } from "zod";
import type { NodeProgress, ProgressSummary } from "../domain/bundleProgress";
import type { Precheck, PrecheckStatus } from "../domain/bundlePrechecks";
import type { ApplicationState, UpgradeState } from "../domain/bundles";
import type { ApplicationRecord, BundleRecord, VettedBundleRecord } from "../store/bundles";
import type { ApplyBundleSchema } from "./apply";
import type { UploadedBundle, VetBundleSchema } from "./bundles";
import type { PrecheckResult } from "./precheck";
import type { ApplicationProgress } from "./progress";
import type { StartUpgradeSchema } from "./startUpgrade";

export type {
  ApplicationProgress,
  ApplicationRecord,
  ApplicationState,
  BundleRecord,
  NodeProgress,
  Precheck,
  PrecheckResult,
  PrecheckStatus,
  ProgressSummary,
  UpgradeState,
  UploadedBundle,
  VettedBundleRecord,
};

/** GET /api/v1/bundles, POST /api/v1/bundles (multipart, the file in `manifest`) */
export type BundleList = { bundles: BundleRecord[] };
export type BundleUploaded = { bundle: UploadedBundle };
/** GET and POST /api/v1/bundles/vetted */
export type VettedList = { vetted: VettedBundleRecord[] };
export type VetBundleRequest = z.input<typeof VetBundleSchema>;
export type BundleVetted = { vetted: VettedBundleRecord };
/** GET and POST /api/v1/bundle-applications */
export type ApplicationList = { applications: ApplicationRecord[] };
export type ApplyBundleRequest = z.input<typeof ApplyBundleSchema>;
/** POST /api/v1/bundle-applications, …/{id}/start-upgrade and …/{id}/unpin */
export type ApplicationChanged = { application: ApplicationRecord };
export type StartUpgradeRequest = z.input<typeof StartUpgradeSchema>;

/** What a refused apply (409) carries beside `error`: the prechecks as they are now, and the warnings not yet confirmed. */
export type ApplyRefusal = { checks?: Precheck[]; needsConfirmation?: boolean; unconfirmed?: string[] };
/** What a refused upload (422) carries beside `error`. */
export type UploadRefusal = { digest?: string; problems?: string[] };
