import https from "node:https";
import type { Duplex } from "node:stream";
import type tls from "node:tls";

/**
 * An HTTPS connection pool that asks for its TLS context when it opens a connection, and so holds
 * none between connections: a context is some 19 KB of resident memory (./clientConfig.ts
 * MAX_KEPT_CONTEXTS), and a collector keeps a pool per cluster.
 */
export class ContextOnConnectAgent extends https.Agent {
  constructor(
    options: https.AgentOptions,
    private readonly context: () => tls.SecureContext,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void) {
    // Passed on to tls.connect, which takes a context (https.RequestOptions does not declare it).
    const withContext: https.RequestOptions & Pick<tls.ConnectionOptions, "secureContext"> = { ...options, secureContext: this.context() };
    return super.createConnection(withContext, callback);
  }
}
