/** Thrown by loadConfig; the message lists every bad variable by name. */
export class ConfigError extends Error {}
