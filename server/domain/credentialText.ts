/**
 * The parts of a connection a person types (an API URL, a CA bundle), checked and tidied, with what
 * is wrong with a bad one in words. Pure, so the contracts that validate request bodies use it too.
 */
export class CredentialsError extends Error {
  override name = "CredentialsError";
}

/** Validates an API server URL, saying what is wrong with a bad one. */
export function checkServerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new CredentialsError(`"${text.trim().slice(0, 80)}" is not a URL; expected something like https://api.cluster.example.com:6443`);
  }
  if (url.protocol !== "https:") throw new CredentialsError(`the API URL must use https (got ${url.protocol.replace(":", "")})`);
  if (url.search || url.hash) throw new CredentialsError("the API URL must not have a query or fragment");
  return url.toString().replace(/\/$/, "");
}

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export function checkCaBundle(text: string | undefined): string | undefined {
  if (!text?.trim()) return undefined;
  if (!PEM.test(text))
    throw new CredentialsError("the CA bundle is not a PEM certificate (it should start with -----BEGIN CERTIFICATE-----)");
  return text.trim();
}
