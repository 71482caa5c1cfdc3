import { Fragment, type ReactNode } from "react";

/**
 * Text from the server (a finding, its advice) with what it points at made clickable: web addresses,
 * and the places in Fleetskew it names ("request a manual acknowledgement in Fleetskew") as links to
 * that page, with the cluster chosen when there is one.
 */
const URL_OR_PLACE =
  /(https?:\/\/[^\s<>"')]+[^\s<>"').,;:])|((?:request|record) a manual acknowledgement in Fleetskew|acknowledge the boot image in Fleetskew)/g;

export const acknowledgementLink = (cluster?: string) =>
  cluster ? `/acknowledgements?${new URLSearchParams({ request: cluster })}` : "/acknowledgements";

export function LinkedText({ text, cluster }: { text: string; cluster?: string }): ReactNode {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_OR_PLACE)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    const href = m[1] ? m[1] : acknowledgementLink(cluster);
    parts.push(
      <a key={at} href={href} className="text-accent underline" {...(m[1] ? { target: "_blank", rel: "noreferrer noopener" } : {})}>
        {m[0]}
      </a>,
    );
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}

/** Whether advice calls for an acknowledgement, so its action is offered beside it. */
export const callsForAcknowledgement = (text: string | null | undefined): boolean => !!text && /acknowledg/i.test(text);
