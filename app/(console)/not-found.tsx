import Link from "next/link";

/** A console page whose subject is not there, or not the reader's to see: inside the console's own <main>. */
export default function ConsoleNotFound() {
  return (
    <div className="mx-auto max-w-xl py-12">
      <p className="text-sm font-semibold uppercase tracking-wide text-muted">404</p>
      <h1 className="mt-2 text-2xl font-semibold">There is no page here</h1>
      <p className="mt-2 text-muted">It does not exist, or it is outside what you may see.</p>
      <Link href="/fleet" className="mt-6 inline-block rounded-md bg-accent px-4 py-2 font-medium text-accent-ink">
        Go to the fleet
      </Link>
    </div>
  );
}
