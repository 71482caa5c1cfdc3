import { credentialsOf } from "@/server/clusters/registration";
import { readReach } from "@/server/domain/grants";
import { requireClusterInReach } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";
import { audienceOf, previewOnCluster, readProposedMachineConfig } from "@/server/preview/clusterPreview";
import { previewEndpoints } from "@/server/preview/contract";

export const dynamic = "force-dynamic";

/** What a proposed MachineConfig does to each matching pool of one cluster; file contents as the caller's role may see them. */
export const POST = apiRoute(previewEndpoints.cluster, async ({ params, body, user, actor }) => {
  // Before the MachineConfig is read: a cluster outside the reader's reach answers like a missing one, whatever is sent.
  await requireClusterInReach(params.name, readReach(actor.held));
  const proposed = await readProposedMachineConfig(body.machineConfig);
  return previewOnCluster(params.name, await credentialsOf(params.name), proposed, audienceOf(user));
});
