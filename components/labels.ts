/** "env=prod, site=east" → {env: "prod", site: "east"}; null when a part is not key=value. */
export function parseLabels(text: string): Record<string, string> | null {
  const labels: Record<string, string> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) return null;
    labels[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return labels;
}
