import { z } from "zod";
import { credentialsOf } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";
import { MachineConfigText, MAX_PREVIEW_BODY, parseProposedMachineConfig, previewOnCluster } from "@/server/preview/clusterPreview";

export const dynamic = "force-dynamic";

const Body = z.object({
  machineConfig: MachineConfigText,
});

/** What a proposed MachineConfig does to each matching pool of one cluster. */
export const POST = apiRoute<{ name: string }, typeof Body>(
  { access: "any", body: Body, maxBodyBytes: MAX_PREVIEW_BODY },
  async ({ params, body }) => {
    const proposed = parseProposedMachineConfig(body.machineConfig);
    return previewOnCluster(params.name, await credentialsOf(params.name), proposed);
  },
);
