"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { fleetEndpoints, type SkewLimitEntry as Entry, type SkewLimitTable as Table } from "@/server/fleet/contract";
import { call } from "./api";
import { keys, queries } from "./queries";
import type { Seed } from "./seed";
import { useSeededQuery } from "./seededQuery";
import { Alert, Button, Card, TextInput } from "./ui";

/** The skew limits table: the MCO's own entries, read-only, and rows an admin adds for later releases. */
export function SkewLimitsAdmin({ initial }: { initial: Seed<Table> }) {
  const queryClient = useQueryClient();
  const table = useSeededQuery(queries.skewLimits(), initial);
  const [rows, setRows] = useState<Entry[]>(initial.data.added);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const save = useMutation({
    mutationFn: () => call(fleetEndpoints.saveSkewLimits, { body: { entries: rows } }),
    onSuccess: (saved) => {
      setRows(saved.added);
      setMessage({ tone: "ok", text: "Saved. The collector uses the new limits within a minute; verdicts change at the next sweep." });
      void queryClient.invalidateQueries({ queryKey: keys.skewLimits });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const edit = (i: number, patch: Partial<Entry>) => setRows((r) => r.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <Card className="relative overflow-x-auto p-5">
      <h2 className="text-lg font-semibold">Boot-image skew limits</h2>
      <p className="max-w-3xl text-sm text-muted">
        The MCO compiles its limit into each release; no cluster publishes it. Fleetskew knows the releases below. When a later release
        raises the limit, add it here: from that release on, boot images older than the given OpenShift release (or RHEL version, for RHCOS
        builds) block minor updates.
      </p>
      <table className="mt-4 w-full min-w-[32rem] text-left text-sm">
        <caption className="sr-only">Skew limits</caption>
        <thead className="border-b border-line text-muted">
          <tr>
            {["From release", "Minimum OpenShift boot image", "Minimum RHEL", ""].map((h) => (
              <th key={h} scope="col" className="px-2 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.data.known.map((e) => (
            <tr key={e.fromRelease} className="border-b border-line">
              <td className="px-2 py-2">{e.fromRelease}</td>
              <td className="px-2 py-2">{e.ocpVersion}</td>
              <td className="px-2 py-2">{e.rhelVersion}</td>
              <td className="px-2 py-2 text-xs text-muted">from the MCO</td>
            </tr>
          ))}
          {rows.map((e, i) => (
            <tr key={i} className="border-b border-line">
              {(["fromRelease", "ocpVersion", "rhelVersion"] as const).map((field) => (
                <td key={field} className="px-2 py-2">
                  <TextInput
                    aria-label={`${field === "fromRelease" ? "From release" : field === "ocpVersion" ? "Minimum OpenShift boot image" : "Minimum RHEL"}, row ${i + 1}`}
                    value={e[field]}
                    placeholder={field === "rhelVersion" ? "9.4" : field === "fromRelease" ? "4.24.0" : "4.16.0"}
                    onChange={(ev) => edit(i, { [field]: ev.target.value })}
                    className="w-32"
                  />
                </td>
              ))}
              <td className="px-2 py-2">
                <Button type="button" variant="danger" onClick={() => setRows((r) => r.filter((_, j) => j !== i))}>
                  Remove
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-3 flex gap-2">
        <Button
          type="button"
          variant="secondary"
          onClick={() => setRows((r) => [...r, { fromRelease: "", ocpVersion: "", rhelVersion: "" }])}
        >
          Add a release
        </Button>
        <Button type="button" disabled={save.isPending} onClick={() => save.mutate()}>
          Save limits
        </Button>
      </div>
      {message ? (
        <div className="mt-3">
          <Alert tone={message.tone}>{message.text}</Alert>
        </div>
      ) : null}
    </Card>
  );
}
