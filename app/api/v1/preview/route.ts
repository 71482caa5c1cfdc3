import { z } from "zod";
import { apiRoute } from "@/server/http/api";
import { audienceOf, MachineConfigText, MAX_PREVIEW_BODY, readProposedMachineConfig } from "@/server/preview/clusterPreview";
import { FleetPreviewClusters, previewOnFleet } from "@/server/preview/fleetPreview";

export const dynamic = "force-dynamic";

const Body = z.object({ machineConfig: MachineConfigText, clusters: FleetPreviewClusters });

/** A fleet preview: the same MachineConfig on several clusters, with a one-line summary. */
export const POST = apiRoute({ access: "any", body: Body, maxBodyBytes: MAX_PREVIEW_BODY }, async ({ body, user }) =>
  previewOnFleet(body.clusters, await readProposedMachineConfig(body.machineConfig), audienceOf(user)),
);
