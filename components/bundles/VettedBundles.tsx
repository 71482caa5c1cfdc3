"use client";

import { formatDate } from "@/lib/format";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { bundleEndpoints } from "@/server/bundles/contract";
import { can, type Me } from "../access";
import { call } from "../api";
import { keys, queries } from "../queries";
import { Alert, Button, Card, Field, TextInput } from "../ui";

const when = (iso: string) => formatDate(iso);

/** An approver vouches for a manifest by its digest. */
function VetBundle() {
  const queryClient = useQueryClient();
  const [digest, setDigest] = useState("");
  const [note, setNote] = useState("");
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const vet = useMutation({
    mutationFn: () => call(bundleEndpoints.vet, { body: { digest, note } }),
    onSuccess: ({ vetted }) => {
      setMessage({ tone: "ok", text: `Vetted sha256:${vetted.digest}. Technicians can upload this manifest now.` });
      setDigest("");
      setNote("");
      void queryClient.invalidateQueries({ queryKey: keys.bundles });
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  return (
    <form
      aria-label="Vet a bundle"
      className="flex flex-col gap-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        vet.mutate();
      }}
    >
      <Field
        label="Digest"
        htmlFor="vet-digest"
        hint="The 64 hexadecimal characters sha256sum prints for the manifest file (a sha256: prefix may stay)."
      >
        <TextInput
          id="vet-digest"
          value={digest}
          onChange={(e) => setDigest(e.target.value)}
          className="font-mono"
          placeholder="e.g. 3f1c…9ab0 (from sha256sum bundle-4.19.11.json)"
        />
      </Field>
      <Field label="Why it is trusted" htmlFor="vet-note" hint="e.g. where it was built and checked, the change ticket.">
        <TextInput id="vet-note" value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <div>
        <Button type="submit" disabled={vet.isPending}>
          Vet bundle
        </Button>
      </div>
      {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
    </form>
  );
}

/** The digests vetted so far; approvers vet more here. */
export function VettedList({ me }: { me: Me }) {
  const vetted = useQuery({ ...queries.vettedBundles(), enabled: can(me, ["technician", "approver"]) });
  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Vetted bundles</h2>
      <p className="text-sm text-muted">
        Only a manifest whose digest is listed here can be uploaded.{" "}
        {can(me, ["approver"]) ? "Vet one by its digest." : "Approvers vet bundles."}
      </p>
      <div className="mt-4 grid gap-6 lg:grid-cols-2">
        {can(me, ["approver"]) ? <VetBundle /> : null}
        <ul className="flex flex-col gap-2 text-sm" aria-label="Vetted digests">
          {vetted.data && vetted.data.length === 0 ? (
            <li className="rounded-md border border-dashed border-line p-3" data-testid="no-vetted-bundles">
              <p className="font-medium">No bundle is vetted yet.</p>
              <p className="mt-1 text-muted">
                A bundle manifest is a JSON file listing the images a release needs on every node (docs/bundle-format.md); it is made where
                the release is mirrored and handed over with the mirror. To try one, download the{" "}
                <a className="text-accent underline" href="/bundles/example" download="bundle-4.19.11.json">
                  example manifest for 4.19.11
                </a>
                . First an approver vets its digest here (<code>sha256sum bundle-4.19.11.json</code>), then a technician uploads the file
                above.
              </p>
            </li>
          ) : null}
          {(vetted.data ?? []).map((v) => (
            <li key={v.digest} className="rounded-md border border-line p-2">
              <code className="block break-all font-mono text-xs">sha256:{v.digest}</code>
              <span className="text-xs text-muted">
                {v.vettedBy}, {when(v.vettedAt)}: {v.note}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </Card>
  );
}
