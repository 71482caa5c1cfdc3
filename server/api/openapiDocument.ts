import { allEndpoints } from "./endpoints";
import { buildOpenApiDocument } from "../http/openapi";
import packageJson from "../../package.json";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

/** The document of this build's API, made once per process (it only changes with the code). */
export function openApiDocument() {
  return (document ??= buildOpenApiDocument(allEndpoints, packageJson.version));
}
