import { readFile } from "node:fs/promises";
import type http from "node:http";
import path from "node:path";

/**
 * True in the start, migrate and collector scripts bundled into the standalone build (what the
 * container image runs): the bundler replaces the expression with "1". Under tsx the variable is
 * simply unset.
 */
export const runsFromStandaloneBuild = (): boolean => process.env.FLEETSKEW_STANDALONE_BUILD === "1";

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/**
 * Next.js as a request handler behind the console's own HTTP server. In the standalone build there
 * is no next.config.js (nor its imports) to load, so Next is handed the configuration the build
 * resolved, the way the standalone `server.js` that Next writes does it.
 */
export async function createNextHandler(options: { dev: boolean; root: string; host: string; port: number }): Promise<RequestHandler> {
  let conf: Record<string, unknown> | undefined;
  if (runsFromStandaloneBuild()) {
    const manifest = JSON.parse(await readFile(path.join(options.root, ".next/required-server-files.json"), "utf8")) as {
      config: Record<string, unknown>;
    };
    conf = manifest.config;
    Object.assign(process.env, { NODE_ENV: "production", __NEXT_PRIVATE_STANDALONE_CONFIG: JSON.stringify(conf) });
  }
  const { default: next } = await import("next");
  const app = next({ dev: options.dev, dir: options.root, hostname: options.host, port: options.port, ...(conf ? { conf } : {}) });
  await app.prepare();
  return app.getRequestHandler();
}
