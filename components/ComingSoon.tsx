import { Card, PageHeader } from "./ui";

export function ComingSoon({ title, description, points }: { title: string; description: string; points: string[] }) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <Card className="p-6">
        <p className="text-sm font-semibold uppercase tracking-wide text-muted">Coming soon</p>
        <ul className="mt-3 list-disc space-y-1 pl-5 text-sm">
          {points.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </Card>
    </>
  );
}
