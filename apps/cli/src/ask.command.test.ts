import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiTestServer } from '@fathom/rlm';
import { loadPolicy, type LoadedPolicy } from '@fathom/training';
import { formatTree } from './ask.command';

const bin = fileURLToPath(new URL('../bin/fathom', import.meta.url));
const checkpoint = fileURLToPath(new URL('../../../data/checkpoints/default', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-ask-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fathom(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('fathom ask', () => {
  it('runs the RLM loop of the shipped checkpoint over a file and prints the trace and an answer line', () => {
    const file = join(dir, 'doc.txt');
    writeFileSync(
      file,
      'Filler about the harbour. '.repeat(2000) + 'The vault code is QX7. ' + 'More filler. '.repeat(500),
    );
    const { status, stdout } = fathom(
      'ask',
      '--checkpoint',
      checkpoint,
      '--file',
      file,
      '--max-turns',
      '1',
      '--max-turn-tokens',
      '48',
      '--trace',
      '--no-progress',
      'What is the vault code?',
    );
    expect(status).toBe(0);
    expect(stdout).toContain('--- turn 1 (');
    expect(stdout).toMatch(/episode \(depth 0, 58\d\d\d chars, 1 turn\(s\)\): "What is the vault code\?"/);
    expect(stdout.trim().split('\n').at(-1)).toMatch(/\S/);
  });

  it('refuses an empty file and a missing checkpoint with a message naming it', () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const a = fathom('ask', '--checkpoint', checkpoint, '--file', empty, '--no-progress', 'q?');
    expect(a.status).toBe(1);
    expect(a.stderr).toContain(`${empty} is empty`);
    const b = fathom('ask', '--checkpoint', join(dir, 'nope'), '--file', empty, '--no-progress', 'q?');
    expect(b.status).toBe(1);
  });

  it('prints the recursion tree with kinds, chunk sizes and answers', () => {
    const leaf = {
      depth: 1,
      kind: 'leaf' as const,
      prompt: 'Who owns it?',
      chunkChars: 80,
      answer: 'Ana',
      promptTokens: 1,
      completionTokens: 1,
      latencyMs: 1,
      turns: 1,
      children: [],
    };
    const root = {
      ...leaf,
      depth: 0,
      kind: 'root' as const,
      prompt: 'Where?',
      chunkChars: 900,
      answer: null,
      children: [leaf],
    };
    expect(formatTree(root)).toEqual([
      'episode (depth 0, 900 chars, 1 turn(s)): "Where?" → (no answer)',
      '  llm() leaf (depth 1, 80 chars, 1 turn(s)): "Who owns it?" → "Ana"',
    ]);
  });
});

/** `fathom …` in a child process without blocking this one, whose event loop serves the test endpoint meanwhile. */
function fathomAsync(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(bin, args, { env: { ...process.env, NODE_OPTIONS: '' } });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('fathom ask with a model on an OpenAI-compatible server', () => {
  let served: LoadedPolicy;
  let server: OpenAiTestServer;
  beforeAll(async () => {
    served = await loadPolicy(checkpoint);
    server = await OpenAiTestServer.start({ policy: served.policy, model: 'fathom-default' });
  });
  afterAll(async () => {
    await server.close();
    await served.release();
  });

  it('--policy and --subcalls run the episode through the endpoint and print what it spent', async () => {
    const file = join(dir, 'endpoint-doc.txt');
    writeFileSync(file, 'Filler about the harbour. '.repeat(200) + 'The vault code is QX7.');
    const { status, stdout, stderr } = await fathomAsync(
      ...['ask', '--policy', server.spec, '--subcalls', server.spec, '--reader-window', '4000', '--file', file],
      ...['--max-turns', '1', '--max-turn-tokens', '48', '--trace', '--no-progress', 'What is the vault code?'],
    );
    expect(stderr).not.toMatch(/error/i);
    expect(status).toBe(0);
    expect(stdout).toContain('--- turn 1 (');
    const label = `openai:fathom-default@${server.baseUrl}`;
    expect(stderr).toContain(`policy endpoint ${label}: 1 requests (0 retries), `);
    expect(stderr).toMatch(new RegExp(`subcalls endpoint ${label.replace(/[.]/g, '\\.')}: \\d+ requests`));
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
  });

  it('takes at most one of --checkpoint and --policy, and at most one of --subcalls and --reader-checkpoint', async () => {
    const file = join(dir, 'one.txt');
    writeFileSync(file, 'text');
    const { status, stderr } = await fathomAsync(
      ...['ask', '--checkpoint', checkpoint, '--policy', server.spec, '--file', file, '--no-progress', 'q?'],
    );
    expect(status).toBe(1);
    expect(stderr).toContain('give --checkpoint <dir> or --policy openai:URL#MODEL, not both');
    const both = await fathomAsync(
      ...['ask', '--checkpoint', checkpoint, '--subcalls', server.spec, '--reader-checkpoint', checkpoint],
      ...['--file', file, '--no-progress', 'q?'],
    );
    expect(both.status).toBe(1);
    expect(both.stderr).toContain('give --subcalls or --reader-checkpoint, not both');
  });
});
