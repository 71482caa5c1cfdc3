import { z } from "zod";
import { listKubeconfigContexts } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The contexts of an uploaded kubeconfig (names and servers only), to choose one. */
export const POST = apiRoute(
  {
    access: ["admin"],
    body: z.object({
      kubeconfig: z
        .string()
        .min(1, "Paste or upload a kubeconfig")
        .max(512 * 1024),
    }),
    maxBodyBytes: 600 * 1024,
  },
  async ({ body }) => ({
    contexts: listKubeconfigContexts(body.kubeconfig),
  }),
);
