import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";
import { audienceOf, readProposedMachineConfig } from "@/server/preview/clusterPreview";
import { previewEndpoints } from "@/server/preview/contract";
import { previewOnFleet } from "@/server/preview/fleetPreview";

export const dynamic = "force-dynamic";

/** A fleet preview: the same MachineConfig on several clusters in the requester's reach, with a one-line summary. */
export const POST = apiRoute(previewEndpoints.fleet, async ({ body, user, actor }) =>
  previewOnFleet(body.clusters, await readProposedMachineConfig(body.machineConfig), audienceOf(user), readReach(actor.held)),
);
