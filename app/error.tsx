"use client";

// Shown when a page fails to render, e.g. while the database is unreachable.
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-xl px-6 py-20">
      <p className="text-sm font-semibold uppercase tracking-wide text-danger">Something went wrong</p>
      <h1 className="mt-2 text-2xl font-semibold">This page could not be shown</h1>
      <p className="mt-3 text-muted">
        The server could not finish the request. If it keeps happening, check that the database is reachable (
        <a className="underline" href="/api/health">
          /api/health
        </a>{" "}
        says) and look at the server log{error.digest ? ` for error ${error.digest}` : ""}.
      </p>
      <button type="button" onClick={reset} className="mt-6 rounded-md bg-accent px-4 py-2 font-medium text-accent-ink">
        Try again
      </button>
    </main>
  );
}
