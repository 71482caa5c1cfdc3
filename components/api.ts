/** Client-side calls to /api/v1: JSON in, JSON out, and the server's own message on failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The rest of the server's answer (e.g. the digest of a refused bundle, the checks that blocked). */
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A FormData body is sent as multipart/form-data (file uploads); anything else as JSON. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const form = init.body instanceof FormData ? init.body : undefined;
  const response = await fetch(path, {
    method: init.method ?? "GET",
    headers: init.body !== undefined && !form ? { "content-type": "application/json" } : undefined,
    body: form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    credentials: "same-origin",
  });
  if (response.status === 401 && typeof window !== "undefined" && !path.endsWith("/session")) {
    // The session ended: a full load of the login page, from wherever this call was made (outside React).
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
  }
  if (response.status === 204) return undefined as T;
  const data = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new ApiError(
      response.status,
      (data as { error?: string }).error ?? `Request failed (${response.status})`,
      data as Record<string, unknown>,
    );
  return data as T;
}
