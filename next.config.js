// @ts-check
const { PHASE_PRODUCTION_BUILD } = require("next/constants");

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Prisma's generated client, PGlite and pg load WebAssembly or native modules at run time;
  // they are required from node_modules instead of being bundled.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", "pg", "@electric-sql/pglite", "@kubernetes/client-node"],
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // forbidden() renders app/forbidden.tsx with HTTP 403 for a signed-in user lacking the role.
    authInterrupts: true,
  },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

/**
 * The build also writes a standalone copy (.next/standalone: the server and only the files it
 * needs), which the container image is made from. Only the build phase asks for it: `npm start`
 * serves .next through its own server, and Next warns when a server loads a standalone config
 * without being the standalone one.
 * @param {string} phase
 * @returns {import('next').NextConfig}
 */
module.exports = (phase) => (phase === PHASE_PRODUCTION_BUILD ? { ...nextConfig, output: "standalone" } : nextConfig);
