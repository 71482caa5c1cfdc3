import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-xl px-6 py-20">
      <p className="text-sm font-semibold uppercase tracking-wide text-danger">403 · Not allowed</p>
      <h1 className="mt-2 text-2xl font-semibold">Your role does not give access to this page</h1>
      <p className="mt-3 text-muted">Ask an admin to change your role if you need it. Everything you can use is in the navigation.</p>
      <Link href="/fleet" className="mt-6 inline-block rounded-md bg-accent px-4 py-2 font-medium text-accent-ink">
        Go to the fleet
      </Link>
    </main>
  );
}
