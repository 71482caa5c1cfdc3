import { testRegisteredCluster } from "@/server/clusters/registration";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test a registered cluster's connection now and record the outcome (audited). */
export const POST = apiRoute({ access: ["admin"], params: pathParams("name") }, async ({ params, actor }) => ({
  report: await testRegisteredCluster(params.name, actor),
}));
