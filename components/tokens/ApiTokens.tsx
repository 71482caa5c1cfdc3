"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { tokenEndpoints, type TokenAnswer } from "@/server/tokens/contract";
import { call } from "../api";
import { keys, queries } from "../queries";
import type { Seed } from "../seed";
import { useSeededQuery } from "../seededQuery";
import { Alert, Card } from "../ui";
import { TokenForm } from "./TokenForm";
import { TokenTable } from "./TokenTable";

/** The signed-in person's API tokens: the list, a form to create one, revoking. */
export function ApiTokens({ initial, roles }: { initial: Seed<TokenAnswer[]>; roles: readonly ("viewer" | "technician" | "admin")[] }) {
  const queryClient = useQueryClient();
  const tokens = useSeededQuery(queries.tokens(), initial);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.tokens });

  const revoke = useMutation({
    mutationFn: (token: TokenAnswer) => call(tokenEndpoints.revoke, { params: { id: token.id } }),
    onSuccess: ({ token }) => {
      setMessage({ tone: "ok", text: `Revoked ${token.name}.` });
      refresh();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });

  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
      <div className="flex flex-col gap-4">
        {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        <Card className="relative overflow-x-auto">
          <TokenTable tokens={tokens.data} revoke={(t) => revoke.mutate(t)} revoking={revoke.isPending} caption="Your API tokens" />
        </Card>
      </div>
      <Card className="p-5">
        <TokenForm
          idPrefix="new-token"
          roles={roles}
          create={(body) => call(tokenEndpoints.create, { body })}
          onCreated={() => {
            setMessage(null);
            refresh();
          }}
        />
      </Card>
    </div>
  );
}
