import type { ButtonHTMLAttributes, InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";
import { LinkedText } from "./LinkedText";

const buttonStyles = {
  primary: "bg-accent text-accent-ink hover:opacity-90",
  secondary: "border border-line bg-surface text-ink hover:bg-canvas",
  danger: "border border-line bg-surface text-danger hover:bg-canvas",
};

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof buttonStyles }) {
  return (
    <button
      {...props}
      className={`inline-flex items-center justify-center rounded-md px-3.5 py-2 text-sm font-medium transition disabled:cursor-not-allowed disabled:opacity-50 ${buttonStyles[variant]} ${className}`}
    />
  );
}

export function Field({ label, hint, children, htmlFor }: { label: string; hint?: string; htmlFor: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={htmlFor} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {hint ? <p className="text-xs text-muted">{hint}</p> : null}
    </div>
  );
}

const inputStyles = "rounded-md border border-line bg-surface px-3 py-2 text-sm text-ink placeholder:text-muted";

export const TextInput = (props: InputHTMLAttributes<HTMLInputElement>) => (
  <input {...props} className={`${inputStyles} ${props.className ?? ""}`} />
);

export const Select = (props: SelectHTMLAttributes<HTMLSelectElement>) => (
  <select {...props} className={`${inputStyles} ${props.className ?? ""}`} />
);

export function Alert({ tone, children }: { tone: "error" | "info" | "ok"; children: ReactNode }) {
  const styles = { error: "border-danger text-danger", info: "border-line text-ink", ok: "border-ok text-ok" }[tone];
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-md border-l-4 bg-surface px-3 py-2 text-sm ${styles}`}>
      {children}
    </div>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold">{title}</h1>
        {description ? <p className="mt-1 max-w-3xl text-muted">{description}</p> : null}
      </div>
      {actions}
    </div>
  );
}

export function Card({ children, className = "" }: { children: ReactNode; className?: string }) {
  // min-w-0: in a grid or a flex row a card may be narrower than its widest content (a table scrolls inside it).
  return <section className={`min-w-0 rounded-lg border border-line bg-surface ${className}`}>{children}</section>;
}

/** A titled part of a page, e.g. one section of a cluster's page. */
export function Section({ title, children, description }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Card className="p-4">
      <h2 className="font-semibold">{title}</h2>
      {description ? <p className="text-xs text-muted">{description}</p> : null}
      <div className="mt-3">{children}</div>
    </Card>
  );
}

/** The first column of a table that scrolls sideways: held at the left edge, over the columns scrolled under it. */
const STICKY_FIRST = "sticky left-0 z-10 bg-surface";

/** One column of a Table: its heading, and what each row shows in it. */
export type Column<T> = { head: string; cell: (row: T) => ReactNode };

/**
 * A plain table: a column per `columns` entry, a row per item of `rows`; the first column is each
 * row's header (scope row). `rowProps` adds attributes to a row (data-* for tests and styles).
 * On a narrow screen the table scrolls sideways inside its own box, never the page, and its first
 * column stays in place so every row keeps its name while the other columns pass under it.
 */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowProps,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T, index: number) => string;
  rowProps?: (row: T) => Record<`data-${string}`, string>;
}) {
  return (
    // A box that scrolls is a stop for the keyboard, so its hidden columns can be reached without a pointer.
    // A group, not a region: pages name their own regions, and a second one of the same name would be ambiguous.
    <div className="max-w-full relative overflow-x-auto" role="group" aria-label={caption} tabIndex={0}>
      <table className="w-full text-left text-sm break-words">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-line text-muted">
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={`px-2 py-2 font-medium ${i === 0 ? STICKY_FIRST : ""}`}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)} {...rowProps?.(row)} className="border-b border-line align-top last:border-0">
              {columns.map((c, j) =>
                j === 0 ? (
                  <th key={j} scope="row" className={`px-2 py-2 font-medium ${STICKY_FIRST}`}>
                    {/* At most 40% of the screen, so the columns scrolling under it stay in view on a phone. */}
                    <div className="max-w-[40vw] [overflow-wrap:anywhere]">{c.cell(row)}</div>
                  </th>
                ) : (
                  <td key={j} className="px-2 py-2">
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Text that may carry URLs (an operator's message, a check's advice): each URL, and each place in
 * Fleetskew it names, becomes a link (LinkedText), and it breaks anywhere, so a long documentation address wraps inside its box on a phone.
 */
export function TextWithLinks({ text, cluster }: { text: string; cluster?: string }) {
  return (
    <span className="[overflow-wrap:anywhere]">
      <LinkedText text={text} cluster={cluster} />
    </span>
  );
}
