import { describe, expect, it } from "vitest";
import { ProcessReadBudget, ReadBudget } from "./limits";

describe("read budgets", () => {
  it("count each source against its own limit and every source together against the process's", () => {
    const process = new ProcessReadBudget(10);
    const a = new ReadBudget("cluster", 8, process);
    const b = new ReadBudget("hub", 8, process);
    expect(a.take(6)).toBe(true);
    expect(b.take(4)).toBe(true);
    expect(process.bytes).toBe(10);
    // Under its own limit, but past the process's: refused, and the message says which.
    expect(b.take(1)).toBe(false);
    expect(b.message).toMatch(/^Fleetskew is already reading 10 bytes from its clusters and hubs at once/);
    // Past its own limit: refused with the source's own message, without touching the process's count.
    expect(a.take(3)).toBe(false);
    expect(a.message).toBe("the cluster's answers to one sweep go past 8 bytes, the most Fleetskew reads from one cluster at a time");
    expect(process.bytes).toBe(11);
  });

  it("give back to the process exactly what they took when a read ends or starts afresh", () => {
    const process = new ProcessReadBudget(100);
    const a = new ReadBudget("cluster", 8, process);
    a.take(5);
    a.take(5); // past its own limit: not the process's
    expect(process.bytes).toBe(5);
    a.restart();
    expect(process.bytes).toBe(0);
    a.take(7);
    a.release();
    a.release();
    expect(process.bytes).toBe(0);
    expect(a.take(8)).toBe(true);
  });
});
