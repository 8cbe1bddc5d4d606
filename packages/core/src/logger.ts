// The logger the domain writes to, as an interface of core's own: the processes pass theirs (pino, built by
// @tidings/runtime, fits it), tests may pass any.

/** One level's call: fields and a message, or a message alone. */
export type LogFn = { (fields: object, message?: string): void; (message: string): void };

/** A structured logger: JSON lines with fields (`messageId`, `orgId`, never a secret). */
export type Logger = {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  /** A logger whose every line carries `bindings`. */
  child(bindings: Record<string, unknown>): Logger;
};
