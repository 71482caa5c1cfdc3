/**
 * What the cluster-registration endpoints of /api/v1 take and send, defined once: route handlers
 * and the feature functions use these, components import them with `import type`.
 */
import type { z } from "zod";
import type { ConnectionReport } from "../kube/connection";
import type { KubeconfigContext } from "../kube/credentials";
import type { ClusterSummary } from "../store/clusters";
import type { RegistrationItemRecord } from "../store/registrationJobs";
import type { BulkContext, BulkPreviewSchema, CreateRegistrationJobSchema, RegistrationJobProgress } from "./bulk";
import type { OfflineImportResult } from "./offlineImport";
import type { CredentialSourceSchema, RegisterClusterSchema, UpdateClusterSchema } from "./registration";

export type { ClusterSummary, ConnectionReport, KubeconfigContext, OfflineImportResult };

/** POST /api/v1/clusters */
export type RegisterClusterRequest = z.input<typeof RegisterClusterSchema>;
export type RegisteredCluster = { cluster: ClusterSummary; report: ConnectionReport };
/** PATCH /api/v1/clusters/{name} */
export type UpdateClusterRequest = z.input<typeof UpdateClusterSchema>;
export type UpdatedCluster = { cluster: ClusterSummary };
/** How to reach a cluster, as the registration form sends it. */
export type CredentialSourceRequest = z.input<typeof CredentialSourceSchema>;
/** POST /api/v1/connection-tests and /api/v1/clusters/{name}/test */
export type ConnectionTest = { report: ConnectionReport };
/** POST /api/v1/kubeconfig-contexts */
export type KubeconfigContexts = { contexts: KubeconfigContext[] };

/** POST /api/v1/registration-jobs/preview */
export type BulkPreviewRequest = z.input<typeof BulkPreviewSchema>;
export type BulkPreview = { contexts: BulkContext[] };
/** POST /api/v1/registration-jobs */
export type CreateRegistrationJobRequest = z.input<typeof CreateRegistrationJobSchema>;
/** POST /api/v1/registration-jobs (202) and GET /api/v1/registration-jobs/{id} */
export type RegistrationJobAnswer = { job: RegistrationJobProgress };
export type { BulkContext, RegistrationJobProgress, RegistrationItemRecord };
