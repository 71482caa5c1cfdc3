/**
 * What the fleet and cluster endpoints of /api/v1 send, defined once: route handlers and pages
 * return these, and components import them with `import type` (docs/api.md describes them).
 */
import type { SkewStatus } from "../domain/clusterSkew";
import type { CheckStatus, Readiness, ReadinessCheck, UpdateKind } from "../domain/readiness";
import type { RegistryLessState } from "../domain/registryLess";
import type { Condition, ClusterSnapshot } from "../domain/snapshot";
import type { SkewLimitEntry } from "../domain/skew";
import type { ContactStatus } from "../store/clusters";
import type { ClusterDetail, FleetCluster, FleetReadiness, FleetSummary, FleetTimeline, Timeline } from "./fleet";
import type { SaveSkewLimitsSchema, SkewLimitTable } from "./skewLimits";
import type { FleetPage } from "./fleetPage";
import type { FleetListQueryInput } from "./fleetQuery";
import type { z } from "zod";

export type {
  CheckStatus,
  ClusterDetail,
  ClusterSnapshot,
  Condition,
  ContactStatus,
  FleetCluster,
  FleetReadiness,
  FleetSummary,
  FleetTimeline,
  Readiness,
  ReadinessCheck,
  RegistryLessState,
  SkewLimitEntry,
  SkewLimitTable,
  SkewStatus,
  Timeline,
  UpdateKind,
};

/** GET /api/v1/clusters: one window of the fleet (query: FleetListQueryInput, docs/api.md). */
export type ClusterList = FleetPage;
export type { FleetListQueryInput, FleetPage };
/** GET /api/v1/clusters/{name}/readiness */
export type ReadinessAnswer = { readiness: Readiness };
/** PUT /api/v1/settings/skew-limits */
export type SaveSkewLimitsRequest = z.input<typeof SaveSkewLimitsSchema>;
