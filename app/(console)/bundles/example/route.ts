import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The example bundle manifest of docs/bundle-format.md, byte for byte, so the bundles page can offer
 * it to try: its digest is what `sha256sum` prints for the file in docs/examples.
 */
export async function GET(): Promise<Response> {
  try {
    const bytes = await readFile(path.join(process.cwd(), "docs/examples/bundle-4.19.11.json"));
    return new Response(new Uint8Array(bytes), {
      headers: {
        "content-type": "application/json",
        "content-disposition": 'attachment; filename="bundle-4.19.11.json"',
        "cache-control": "no-cache",
      },
    });
  } catch {
    return Response.json(
      { error: "The example manifest is not part of this installation; see docs/examples in the source" },
      { status: 404 },
    );
  }
}
