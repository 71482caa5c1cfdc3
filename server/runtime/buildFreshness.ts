import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

// Everything that changes what `next build` produces.
const INPUT_DIRS = ["app", "components", "server", "public", "data"];
const INPUT_FILES = [
  "instrumentation.ts",
  "next.config.js",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "prisma/schema.prisma",
];
const SKIP = new Set(["generated", "node_modules"]);
export const BUILD_STAMP_FILE = "fleetskew-source-hash";

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return SKIP.has(e.name) ? [] : listFiles(full);
      return e.name.includes(".test.") ? [] : [full];
    }),
  );
  return nested.flat();
}

/** A hash of the sources a build is made from; tests are left out, they do not change the build. */
export async function sourceFingerprint(root: string): Promise<string> {
  const files = (await Promise.all(INPUT_DIRS.map((d) => listFiles(path.join(root, d))))).flat();
  files.push(...INPUT_FILES.map((f) => path.join(root, f)));
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    const contents = await readFile(file).catch(() => null);
    if (contents === null) continue;
    hash.update(path.relative(root, file)).update("\0").update(contents).update("\0");
  }
  return hash.digest("hex");
}

/** True when .next holds a production build made from the current sources. */
export async function buildIsCurrent(root: string): Promise<boolean> {
  const [buildId, stamp] = await Promise.all([
    readFile(path.join(root, ".next/BUILD_ID"), "utf8").catch(() => null),
    readFile(path.join(root, ".next", BUILD_STAMP_FILE), "utf8").catch(() => null),
  ]);
  return buildId !== null && stamp !== null && stamp.trim() === (await sourceFingerprint(root));
}
