/**
 * An error a person can act on. Route handlers turn it into its HTTP status with the message;
 * anything else becomes a 500 whose details stay in the server log.
 */
export class UserFacingError extends Error {
  override name = "UserFacingError";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 428 | 429 | 502 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
    /** More for the JSON answer next to `error` (e.g. the digest of a refused bundle). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The one answer for a cluster name that is not registered. */
export const noSuchCluster = (name: string) => new UserFacingError(404, `no cluster named ${name}`);
