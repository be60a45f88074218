/**
 * Imported first by whatever runs the handlers in this process (the local stack, its test and bench
 * processes): Powertools' logger reads its level and service name once, when functions/core/logger.ts
 * is first imported, and goes back to that level on every invocation, so they must be set before
 * any handler module loads. LOG_LEVEL=INFO (or DEBUG) shows more.
 */
process.env.POWERTOOLS_LOG_LEVEL ??= process.env.LOG_LEVEL ?? 'WARN';
process.env.POWERTOOLS_SERVICE_NAME ??= 'bulkonboard-local';
