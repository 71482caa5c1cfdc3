import { z } from "zod";
import { credentialsOf } from "@/server/clusters/registration";
import { apiRoute, pathParams } from "@/server/http/api";
import {
  audienceOf,
  MachineConfigText,
  MAX_PREVIEW_BODY,
  previewOnCluster,
  readProposedMachineConfig,
} from "@/server/preview/clusterPreview";

export const dynamic = "force-dynamic";

const Body = z.object({ machineConfig: MachineConfigText });

/** What a proposed MachineConfig does to each matching pool of one cluster; file contents as the caller's role may see them. */
export const POST = apiRoute(
  { access: "any", params: pathParams("name"), body: Body, maxBodyBytes: MAX_PREVIEW_BODY },
  async ({ params, body, user }) => {
    const proposed = await readProposedMachineConfig(body.machineConfig);
    return previewOnCluster(params.name, await credentialsOf(params.name), proposed, audienceOf(user));
  },
);
