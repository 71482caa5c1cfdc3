/**
 * What the ACM hub endpoints of /api/v1 take and send (docs/api.md#acm-hubs): route handlers and the
 * feature functions use these, components import them with `import type`.
 */
import type { z } from "zod";
import type { HubMemberRecord, HubSummary } from "../store/hubs";
import type { HubDetail, RegisterHubSchema } from "./hubs";

export type { HubDetail, HubMemberRecord, HubSummary };
/** POST /api/v1/hubs */
export type RegisterHubRequest = z.input<typeof RegisterHubSchema>;
export type RegisteredHub = { hub: HubSummary };
/** GET /api/v1/hubs */
export type HubList = { hubs: HubSummary[] };
/** DELETE /api/v1/hubs/{name} */
export type RemovedHub = { clusters: number; permissionsLeft: string | null };
