/**
 * Typed errors carry their HTTP status. The HTTP middleware maps them in one place; anything
 * else becomes a generic 500 whose details never leave the server.
 */
export class HttpError extends Error {
  /** A machine-readable reason the browser acts on (shared/schemas/security.ts securityErrorCodes); sent as `code`. */
  code?: string;
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
  withCode(code: string): this {
    this.code = code;
    return this;
  }
}

/**
 * A failure after a creation began writing: what was written stays (and is counted), so a retry
 * of the same request must not run it again.
 */
export class WriteInterruptedError extends Error {
  constructor(
    readonly projectName: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'WriteInterruptedError';
  }
}

export class ValidationError extends HttpError {
  constructor(message = 'Invalid request', details?: unknown) {
    super(400, message, details);
  }
}
export class UnauthorizedError extends HttpError {
  constructor(message = 'Unauthorized') {
    super(401, message);
  }
}
export class PlanLimitError extends HttpError {
  constructor(message: string, details?: unknown) {
    super(403, message, details);
  }
}
export class ForbiddenError extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}
export class ConflictError extends HttpError {
  constructor(message: string, details?: unknown) {
    super(409, message, details);
  }
}
/**
 * Something that existed and is no more, for good: a spent or expired one-time link, or an account
 * that was deleted (or whose deletion is under way: nothing more is read or written for it).
 */
export class GoneError extends HttpError {
  constructor(message = 'This account has been deleted.', details?: unknown) {
    super(410, message, details);
  }
}
export class PayloadTooLargeError extends HttpError {
  constructor(message = 'Request body is too large') {
    super(413, message);
  }
}
export class UnprocessableError extends HttpError {
  constructor(message: string, details?: unknown) {
    super(422, message, details);
  }
}
export class TooManyRequestsError extends HttpError {
  constructor(message = 'Too many requests. Please try again shortly.') {
    super(429, message);
  }
}
export class BadGatewayError extends HttpError {
  constructor(message: string) {
    super(502, message);
  }
}
export class ServiceUnavailableError extends HttpError {
  constructor(message: string) {
    super(503, message);
  }
}
