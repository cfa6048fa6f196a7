export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Structured fields attached to a log line. Errors are expanded to name, message and stack. */
export type LogFields = Record<string, unknown>;

/**
 * A structured JSON logger: one JSON object per line with time, level, service, msg and fields. An abstract class
 * rather than an interface so that it is also the Nest injection token of a service's logger.
 */
export abstract class Logger {
  abstract debug(msg: string, fields?: LogFields): void;
  abstract info(msg: string, fields?: LogFields): void;
  abstract warn(msg: string, fields?: LogFields): void;
  abstract error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `bindings` (e.g. an episode id). */
  abstract child(bindings: LogFields): Logger;
}

export interface LoggerOptions {
  service: string;
  /** Lines below this level are dropped. Default "info". */
  level?: LogLevel;
  /** Where lines go. Default process.stdout. */
  write?: (line: string) => void;
}

/** Creates a JSON-lines logger. Writing never throws: an unserialisable field is replaced by its string form. */
export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const threshold = RANK[options.level ?? 'info'];
  const make = (bindings: LogFields): Logger => {
    const emit = (level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
      if (RANK[level] < threshold) return;
      const record = { time: new Date().toISOString(), level, service: options.service, msg, ...bindings, ...fields };
      write(`${safeStringify(record)}\n`);
    };
    return {
      debug: (msg, fields) => emit('debug', msg, fields),
      info: (msg, fields) => emit('info', msg, fields),
      warn: (msg, fields) => emit('warn', msg, fields),
      error: (msg, fields) => emit('error', msg, fields),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return make({});
}

function safeStringify(record: LogFields): string {
  try {
    return JSON.stringify(record, replacer);
  } catch {
    return JSON.stringify({ time: record.time, level: record.level, service: record.service, msg: String(record.msg) });
  }
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
}
