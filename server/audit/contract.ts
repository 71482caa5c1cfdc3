/** What GET /api/v1/audit sends, defined once; components import it with `import type`. */
import type { AuditRecord } from "../store/audit";
import type { AuditPage } from "./audit";

export type { AuditPage, AuditRecord };
