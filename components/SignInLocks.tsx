"use client";

import { formatDate } from "@/lib/format";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { signInSettingsEndpoints } from "@/server/auth/contract";
import { call } from "./api";
import { keys, queries } from "./queries";
import { Alert, Button, Card } from "./ui";

const when = (iso: string) => formatDate(iso, { seconds: true });

/** Usernames whose sign-in is slowed down or locked from some address, with a button to clear each (admins). */
export function SignInLocks() {
  const queryClient = useQueryClient();
  const locks = useQuery({ ...queries.signInLocks(), refetchInterval: 15_000 });
  const clear = useMutation({
    mutationFn: (lock: { username: string; address: string }) =>
      call(signInSettingsEndpoints.clearLock, { query: { username: lock.username, address: lock.address } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.signInLocks }),
  });

  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Sign-in locks</h2>
      <p className="mt-1 text-xs text-muted">
        Failed sign-ins slow down, then lock, one username from one address for 15 minutes. Clearing a lock lets that address try again at
        once.
      </p>
      {clear.error ? <Alert tone="error">{clear.error.message}</Alert> : null}
      {locks.data && locks.data.length === 0 ? <p className="mt-3 text-sm text-muted">No username is locked.</p> : null}
      <ul className="mt-3 flex flex-col gap-2" aria-label="Sign-in locks">
        {(locks.data ?? []).map((l) => (
          <li key={`${l.username}@${l.ip}`} className="flex items-center justify-between gap-3 text-sm" data-lock={`${l.username}@${l.ip}`}>
            <span>
              <span className="font-medium">{l.username}</span> from <code>{l.ip}</code>
              <span className="block text-xs text-muted">
                {l.state === "locked" ? "locked" : "slowed down"} until {when(l.until)} · {l.attempts} attempt{l.attempts === 1 ? "" : "s"}
              </span>
            </span>
            <Button
              variant="secondary"
              disabled={clear.isPending}
              onClick={() => clear.mutate({ username: l.username, address: l.ip })}
              aria-label={`Clear the sign-in lock of ${l.username} from ${l.ip}`}
            >
              Clear
            </Button>
          </li>
        ))}
      </ul>
    </Card>
  );
}
