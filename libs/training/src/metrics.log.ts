import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One line of metrics.jsonl. Every record has a kind and the optimizer step it belongs to. */
export interface MetricsRecord {
  kind: string;
  step: number;
  [key: string]: unknown;
}

/**
 * The run's metrics.jsonl, appended one record per line as they happen. On a resume the records after the
 * checkpoint's step are removed first: the resumed run writes those steps again, so the file reads as one
 * uninterrupted run with no duplicated step.
 */
export class MetricsLog {
  private constructor(readonly path: string) {}

  /** A fresh file (an existing one is replaced). */
  static async create(path: string): Promise<MetricsLog> {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '');
    return new MetricsLog(path);
  }

  /** The existing file, cut back to the records of steps ≤ `step` (created empty when absent). */
  static async resume(path: string, step: number): Promise<MetricsLog> {
    await mkdir(dirname(path), { recursive: true });
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const kept = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => (JSON.parse(line) as MetricsRecord).step <= step);
    await writeFile(path, kept.map((line) => line + '\n').join(''));
    return new MetricsLog(path);
  }

  async write(record: Pick<MetricsRecord, 'kind' | 'step'>): Promise<void> {
    await appendFile(this.path, JSON.stringify(record) + '\n');
  }

  /** Every record in the file, in order. */
  static async read(path: string): Promise<MetricsRecord[]> {
    const text = await readFile(path, 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as MetricsRecord);
  }
}
