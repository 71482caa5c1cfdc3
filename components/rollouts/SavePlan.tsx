"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { ApiError, call } from "../api";
import { Alert, Button } from "../ui";

/** Saves the plan shown, for someone else to approve; nothing is written to a cluster before that. */
export function SavePlan({ body }: { body: unknown }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const saved = await call(rolloutEndpoints.create, { body: { ...(body as object), dryRun: false } as never });
      router.push(`/rollouts/${"number" in saved ? saved.number : ""}`);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
      setSaving(false);
    }
  };
  return (
    <div className="mt-4 flex flex-wrap items-center gap-3">
      <Button type="button" onClick={save} disabled={saving}>
        {saving ? "Saving…" : "Save the plan for approval"}
      </Button>
      <span className="text-xs text-muted">Someone else with the approver role starts it. Nothing is written to a cluster before.</span>
      {error ? <Alert tone="error">{error}</Alert> : null}
    </div>
  );
}
