/**
 * Completes Next's standalone output (.next/standalone) into the directory the container image
 * runs, so that it needs neither the sources, nor TypeScript, nor tsx:
 * - the console's own entry points (scripts/start, migrate, collector) bundled to plain JavaScript
 *   in <standalone>/scripts/, with the packages Next keeps external left as `require`s;
 * - the files of those packages the bundles load at run time (traced, as Next traces its server);
 * - what Next leaves out of the standalone copy (static assets, public/) and the files the
 *   console reads by path (migrations, the simulator's fixtures for the demo fleet).
 */
import { cp, mkdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { nodeFileTrace } from "@vercel/nft";
import { build, type Plugin } from "esbuild";

export const STANDALONE_DIR = ".next/standalone";
const ENTRY_POINTS = ["start", "background", "migrate", "collector"];
/** Read by path at run time, relative to the project root, copied as they are. */
const DATA = ["prisma/migrations", "server/simulator/fixtures", "public", ".next/static"];
/**
 * Package files loaded through computed URLs, which tracing cannot see: the embedded database's
 * WebAssembly and file-system image (PGlite builds them from `new URL("./pglite.wasm", …)`), and the
 * trigram extension it loads for the fleet list's search (`new URL("../pg_trgm.tar.gz", …)`).
 */
const RUNTIME_ASSETS = ["pglite.wasm", "pglite.data", "initdb.wasm", "pg_trgm.tar.gz"].map(
  (f) => `node_modules/@electric-sql/pglite/dist/${f}`,
);

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * Each module sees its own location as it does under tsx, not the bundle's: `__dirname`,
 * `__filename` and `import.meta.url` become paths under the standalone root, which the banner
 * computes from where the bundle lies (<root>/scripts/).
 */
function keepSourceLocations(root: string): Plugin {
  return {
    name: "keep-source-locations",
    setup(b) {
      b.onLoad({ filter: /\.(ts|tsx|mts|cts|js|mjs|cjs)$/ }, async (args) => {
        const rel = path.relative(root, args.path).split(path.sep).join("/");
        if (rel.startsWith("..") || rel.split("/").includes("node_modules")) return undefined;
        const source = await readFile(args.path, "utf8");
        if (!/__dirname|__filename|import\.meta\.url/.test(source)) return undefined;
        const at = (p: string) => `require("node:path").join(__fleetskewRoot, ${JSON.stringify(p)})`;
        const contents = source
          .replace(/import\.meta\.url/g, `require("node:url").pathToFileURL(${at(rel)}).href`)
          // An identifier, not a property or a string such as globalThis['__dirname'].
          .replace(/(?<![\w$.'"`])__dirname(?![\w$'"`])/g, at(path.posix.dirname(rel)))
          .replace(/(?<![\w$.'"`])__filename(?![\w$'"`])/g, at(rel));
        const ext = path.extname(args.path).slice(1);
        const loader = ext === "tsx" ? "tsx" : ext.endsWith("ts") ? "ts" : "js";
        return { contents, loader };
      });
    },
  };
}

/** Adds the console's scripts and run-time files to a finished `next build` with standalone output. */
export async function completeStandalone(root: string): Promise<{ bundles: string[]; packageFiles: number }> {
  const out = path.join(root, STANDALONE_DIR);
  if (!(await exists(path.join(out, "server.js"))))
    throw new Error(`${STANDALONE_DIR} is missing: next build did not write standalone output`);

  // The packages Next loads from node_modules at run time stay external here too (native and
  // WebAssembly modules, Prisma's generated runtime); everything else is bundled.
  const nextConfig = require(path.join(root, "next.config.js"))("phase-production-build") as { serverExternalPackages?: string[] };
  const external = ["next", ...(nextConfig.serverExternalPackages ?? [])].flatMap((p) => [p, `${p}/*`]);

  // Bundled outside the standalone copy first, so tracing resolves packages from the project's
  // complete node_modules rather than from the subset Next copied.
  const staging = path.join(root, ".next/standalone-scripts");
  await rm(staging, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS.map((name) => `scripts/${name}.ts`),
    outdir: path.join(staging, "scripts"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external,
    define: { "process.env.FLEETSKEW_STANDALONE_BUILD": '"1"' },
    banner: { js: 'const __fleetskewRoot = require("node:path").resolve(__dirname, "..");' },
    plugins: [keepSourceLocations(root)],
    logLevel: "warning",
  });
  const bundles = ENTRY_POINTS.map((name) => path.join(staging, "scripts", `${name}.js`));

  // Next itself is traced by the build already: the standalone server.js loads it the same way.
  const { fileList } = await nodeFileTrace(bundles, { base: root, ignore: (p) => p.startsWith("node_modules/next/") });
  let packageFiles = 0;
  for (const file of [...fileList, ...RUNTIME_ASSETS].sort()) {
    if (!file.startsWith("node_modules/")) continue;
    const target = path.join(out, file);
    if (await exists(target)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await cp(path.join(root, file), target, { verbatimSymlinks: true });
    packageFiles++;
  }
  await cp(path.join(staging, "scripts"), path.join(out, "scripts"), { recursive: true });
  await rm(staging, { recursive: true, force: true });
  for (const dir of DATA) {
    await rm(path.join(out, dir), { recursive: true, force: true });
    if (await exists(path.join(root, dir))) await cp(path.join(root, dir), path.join(out, dir), { recursive: true });
  }
  return { bundles: ENTRY_POINTS.map((name) => `${STANDALONE_DIR}/scripts/${name}.js`), packageFiles };
}
