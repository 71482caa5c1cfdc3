import { credentialsOf } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";
import { audienceOf, previewOnCluster, readProposedMachineConfig } from "@/server/preview/clusterPreview";
import { previewEndpoints } from "@/server/preview/contract";

export const dynamic = "force-dynamic";

/** What a proposed MachineConfig does to each matching pool of one cluster; file contents as the caller's role may see them. */
export const POST = apiRoute(previewEndpoints.cluster, async ({ params, body, user }) => {
  const proposed = await readProposedMachineConfig(body.machineConfig);
  return previewOnCluster(params.name, await credentialsOf(params.name), proposed, audienceOf(user));
});
