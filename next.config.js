// @ts-check

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Prisma's generated client, PGlite and pg load WebAssembly or native modules at run time;
  // they are required from node_modules instead of being bundled.
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "@kubernetes/client-node",
  ],
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

module.exports = nextConfig;
