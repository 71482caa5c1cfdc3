import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-20">
      <p className="text-sm font-semibold uppercase tracking-wide text-muted">404</p>
      <h1 className="mt-2 text-2xl font-semibold">There is no page here</h1>
      <Link href="/fleet" className="mt-6 inline-block rounded-md bg-accent px-4 py-2 font-medium text-accent-ink">
        Go to the fleet
      </Link>
    </main>
  );
}
