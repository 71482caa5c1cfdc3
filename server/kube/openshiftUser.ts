import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { z } from "zod";

/**
 * Who an OpenShift OAuth access token belongs to, and their groups, read from the OpenShift API:
 * GET /apis/user.openshift.io/v1/users/~ answers, for the token's own user, a User whose `groups`
 * are those of the request's authenticated user, Group objects included (openshift/oauth-apiserver,
 * pkg/user/apiserver/registry/user/etcd/etcd.go, REST.Get for "~"). A token with the scope
 * `user:info` may read it; oauth-proxy asks for `user:info user:check-access`.
 */
const UserSchema = z.object({
  metadata: z.object({ name: z.string().min(1).max(512) }),
  fullName: z.string().max(512).optional(),
  groups: z.array(z.string().max(512)).max(5000).nullish(),
});

export type OpenShiftUser = { name: string; fullName: string | null; groups: string[] };

export class OpenShiftUserError extends Error {
  override name = "OpenShiftUserError";
}

const caCache = new Map<string, Promise<string>>();

export async function openshiftUserForToken(
  api: { url: string; caFile: string | undefined },
  token: string,
  timeoutMs = 5000,
): Promise<OpenShiftUser> {
  const url = new URL("/apis/user.openshift.io/v1/users/~", api.url);
  let ca: string | undefined;
  if (api.caFile && url.protocol === "https:") {
    if (!caCache.has(api.caFile)) caCache.set(api.caFile, readFile(api.caFile, "utf8"));
    ca = await caCache.get(api.caFile)!.catch((error: Error) => {
      caCache.delete(api.caFile!);
      throw new OpenShiftUserError(`cannot read the OpenShift API's CA bundle ${api.caFile}: ${error.message}`);
    });
  }
  const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(
      url,
      { method: "GET", headers: { authorization: `Bearer ${token}`, accept: "application/json" }, ca, timeout: timeoutMs },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          if (text.length > 1_000_000) req.destroy(new OpenShiftUserError("the OpenShift API's answer is over 1 MB"));
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new OpenShiftUserError(`the OpenShift API did not answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  }).catch((error: Error) => {
    throw error instanceof OpenShiftUserError
      ? error
      : new OpenShiftUserError(`cannot reach the OpenShift API at ${api.url}: ${error.message}`);
  });
  if (body.status === 401 || body.status === 403) throw new OpenShiftUserError(`the OpenShift API refused the token (${body.status})`);
  if (body.status !== 200) throw new OpenShiftUserError(`the OpenShift API answered ${body.status} for users/~`);
  let parsed: z.infer<typeof UserSchema>;
  try {
    parsed = UserSchema.parse(JSON.parse(body.text));
  } catch {
    throw new OpenShiftUserError("the OpenShift API's users/~ answer is not a User");
  }
  return { name: parsed.metadata.name, fullName: parsed.fullName || null, groups: parsed.groups ?? [] };
}
