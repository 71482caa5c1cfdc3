import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { listKubeconfigContexts } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The contexts of an uploaded kubeconfig (names and servers only), to choose one. */
export const POST = apiRoute(clusterAdminEndpoints.kubeconfigContexts, async ({ body }) => ({
  contexts: listKubeconfigContexts(body.kubeconfig),
}));
