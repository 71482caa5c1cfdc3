import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { Providers } from "@/components/Providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Fleetskew", template: "%s · Fleetskew" },
  description: "Boot-image skew, upgrade readiness and disconnected upgrades across a fleet of OpenShift clusters.",
  icons: { icon: "/favicon.svg" },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request, so each carries the nonce of its Content-Security-Policy.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans antialiased">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
