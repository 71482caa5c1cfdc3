/** An error the simulated API server answers with, as a Kubernetes `Status` object. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: {
      name?: string;
      group?: string;
      kind?: string;
      causes?: { reason: string; message: string; field: string }[];
    },
  ) {
    super(message);
  }

  toStatus() {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export const resourceRef = (plural: string, group: string, name: string) => `${plural}${group ? `.${group}` : ""} "${name}"`;

export const notFound = (plural: string, group: string, name: string) =>
  new ApiError(404, "NotFound", `${resourceRef(plural, group, name)} not found`, { name, group, kind: plural });

export const conflict = (plural: string, group: string, name: string) =>
  new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resourceRef(plural, group, name)}: the object has been modified; please apply your changes to the latest version and try again`,
    { name, group, kind: plural },
  );

export const alreadyExists = (plural: string, group: string, name: string) =>
  new ApiError(409, "AlreadyExists", `${resourceRef(plural, group, name)} already exists`, { name, group, kind: plural });

export const badRequest = (message: string) => new ApiError(400, "BadRequest", message);
