import { z } from "zod";
import { apiRoute } from "@/server/http/api";
import { MachineConfigText, MAX_PREVIEW_BODY, parseProposedMachineConfig } from "@/server/preview/clusterPreview";
import { previewOnFleet } from "@/server/preview/fleetPreview";

export const dynamic = "force-dynamic";

const Body = z.object({
  machineConfig: MachineConfigText,
  clusters: z.union([z.literal("all"), z.array(z.string()).min(1, "Choose at least one cluster").max(1000)]).default("all"),
});

/** A fleet preview: the same MachineConfig on several clusters, with a one-line summary. */
export const POST = apiRoute({ access: "any", body: Body, maxBodyBytes: MAX_PREVIEW_BODY }, async ({ body }) =>
  previewOnFleet(body.clusters, parseProposedMachineConfig(body.machineConfig)),
);
