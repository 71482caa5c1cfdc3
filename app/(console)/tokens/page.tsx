import type { Metadata } from "next";
import { ApiTokens } from "@/components/tokens/ApiTokens";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { requirePageActor } from "@/server/auth/page";
import { ceilingsFor, ownTokens } from "@/server/tokens/tokens";

export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  const actor = await requirePageActor("any");
  const tokens = await ownTokens(actor);
  return (
    <>
      <PageHeader
        title="API tokens"
        description="Tokens let scripts and pipelines call the Fleetskew API as you (Authorization: Bearer fsk_…), limited to a role and a scope you choose. A token can read, plan, apply and pause; it never approves, releases a wave, decides an acknowledgement or manages accounts."
      />
      <ApiTokens initial={seed(tokens)} roles={ceilingsFor(actor.user)} />
    </>
  );
}
