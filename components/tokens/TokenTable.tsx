"use client";

import { useState } from "react";
import { formatDate, formatDay } from "@/lib/format";
import type { TokenAnswer } from "@/server/tokens/contract";
import { Button } from "../ui";

const STATE_STYLE: Record<TokenAnswer["state"], string> = { active: "text-ok", expired: "text-muted", revoked: "text-danger" };

/**
 * Tokens with when each was created, expires and was last used (and from where); a live one can be
 * revoked, after a confirmation in place.
 */
export function TokenTable({
  tokens,
  revoke,
  revoking,
  caption,
}: {
  tokens: readonly TokenAnswer[];
  revoke: (token: TokenAnswer) => void;
  revoking: boolean;
  caption: string;
}) {
  const [confirming, setConfirming] = useState<string | null>(null);
  if (tokens.length === 0) return <p className="px-4 py-3 text-sm text-muted">No tokens yet.</p>;
  return (
    <div className="relative overflow-x-auto">
      <table className="w-full min-w-[40rem] text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="whitespace-nowrap border-b border-line text-muted">
          <tr>
            {["Token", "May do", "Created", "Expires", "Last used", "State"].map((h) => (
              <th key={h} scope="col" className="px-4 py-3 font-medium">
                {h}
              </th>
            ))}
            <th scope="col" className="px-4 py-3 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id} className="border-b border-line last:border-0" data-token={t.name}>
              <th scope="row" className="px-4 py-3 font-medium">
                {t.name}
                <div className="font-mono text-xs font-normal text-muted">{t.prefix}…</div>
              </th>
              <td className="px-4 py-3">
                {t.role ?? "owner's roles"}
                {t.scope ? <div className="text-xs text-muted">within {t.scope}</div> : null}
              </td>
              <td className="px-4 py-3">{formatDay(t.createdAt)}</td>
              <td className="px-4 py-3">{formatDay(t.expiresAt)}</td>
              <td className="px-4 py-3">
                {t.lastUsedAt ? (
                  <>
                    {formatDate(t.lastUsedAt)}
                    {t.lastUsedIp ? <div className="text-xs text-muted">from {t.lastUsedIp}</div> : null}
                  </>
                ) : (
                  <span className="text-muted">Never</span>
                )}
              </td>
              <td className={`px-4 py-3 ${STATE_STYLE[t.state]}`}>
                {t.state === "active" ? "Active" : t.state === "expired" ? "Expired" : "Revoked"}
              </td>
              <td className="px-4 py-3 text-right">
                {t.state !== "active" ? null : confirming === t.id ? (
                  <span className="inline-flex items-center gap-2">
                    <span className="text-xs">Revoke {t.name}? Scripts using it stop at once.</span>
                    <Button
                      variant="danger"
                      disabled={revoking}
                      onClick={() => {
                        setConfirming(null);
                        revoke(t);
                      }}
                    >
                      Yes, revoke
                    </Button>
                    <Button variant="secondary" onClick={() => setConfirming(null)}>
                      Cancel
                    </Button>
                  </span>
                ) : (
                  <Button variant="danger" aria-label={`Revoke ${t.name}`} onClick={() => setConfirming(t.id)}>
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
