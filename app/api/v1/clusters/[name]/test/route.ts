import { testRegisteredCluster } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test a registered cluster's connection now and record the outcome. */
export const POST = apiRoute<{ name: string }>({ access: ["admin"] }, async ({ params }) => ({
  report: await testRegisteredCluster(params.name),
}));
