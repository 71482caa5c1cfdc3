/** A cookie's value from the request's Cookie header; undefined when absent or not decodable. */
export function readCookie(request: Request | Headers, name: string): string | undefined {
  const header = (request instanceof Headers ? request : request.headers).get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
