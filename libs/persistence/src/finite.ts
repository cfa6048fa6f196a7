/** Throws, naming the field, when a metric is NaN or infinite: a NaN in a metrics table reads as data. */
export function assertFinite(record: Record<string, unknown>, fields: readonly string[], what: string): void {
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new Error(`${what}: ${field} must be a finite number, got ${String(value)}`);
    }
  }
}
