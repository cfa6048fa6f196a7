import { createServer, type Server } from 'node:http';
import { createContext, runInContext } from 'node:vm';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * TEST FIXTURE: a small OpenEnv-compatible environment that is not FATHOM's — none of FATHOM's code, only the
 * OpenEnv WebSocket session protocol (`/ws`: `reset`, `step`, `state`, `close` in; `observation`, `state`, `error`
 * out) with OpenEnv REPLEnv's action and observation: `reset({context, task_prompt})` starts a JavaScript REPL whose
 * globals are `context` (and `ctx`) and `print`; `step({code})` runs a cell (node:vm, 1 s limit) and answers with
 * REPLEnv's `result` (`stdout`, `stderr`, `success`, `exception`, …), `available_variables` and `iteration`;
 * `step({is_final: true, final_answer})` ends the episode. Its rewards are its own, not FATHOM's: 0.25 for a cell
 * that ran, −0.25 for one that threw, and for a final answer 1 when it is a word of the context (case aside), else
 * 0. It has none of FATHOM's helpers (grep, search, answer, llm) and knows nothing of `serve_llm`. It counts what it
 * served and keeps each episode's summed reward.
 */
export interface MiniReplEnv {
  url: string;
  served: { resets: number; steps: number; finals: number };
  /** Each episode's rewards summed, in the order the episodes closed. */
  episodeRewards: number[];
  /** Sessions open now. */
  open(): number;
  close(): Promise<void>;
}

const MAX_ITERATIONS = 30;

export async function startMiniReplEnv(): Promise<MiniReplEnv> {
  const served = { resets: 0, steps: 0, finals: 0 };
  const episodeRewards: number[] = [];
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: '/ws' });
  wss.on('connection', (socket: WebSocket) => {
    let repl: { context: object; output: string[]; iteration: number; globals: Set<string> } | null = null;
    let episodeReward: number | null = null;
    const endEpisode = () => {
      if (episodeReward !== null) episodeRewards.push(episodeReward);
      episodeReward = null;
    };
    socket.on('close', endEpisode);
    const send = (type: string, data: unknown) => socket.send(JSON.stringify({ type, data }));
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { type: string; data?: Record<string, unknown> };
      const data = message.data ?? {};
      if (message.type === 'reset') {
        served.resets++;
        const output: string[] = [];
        const text = typeof data.context === 'string' ? data.context : '';
        const print = (...values: unknown[]) => output.push(values.map(String).join(' '));
        const context = createContext({ context: text, ctx: text, print });
        endEpisode();
        repl = { context, output, iteration: 0, globals: new Set(Object.keys(context)) };
        episodeReward = 0;
        send('observation', { observation: observation(repl, { success: true }), reward: null, done: false });
      } else if (message.type === 'step' && data.is_final === true) {
        if (repl === null) return send('error', { message: 'reset first', code: 'NO_EPISODE' });
        served.finals++;
        const reward = isWordOf(String(data.final_answer ?? ''), (repl.context as { context: string }).context);
        episodeReward = (episodeReward ?? 0) + reward;
        send('observation', { observation: observation(repl, { success: true }), reward, done: true });
        repl = null;
      } else if (message.type === 'step') {
        if (repl === null) return send('error', { message: 'reset first', code: 'NO_EPISODE' });
        served.steps++;
        repl.iteration++;
        repl.output.length = 0;
        const started = performance.now();
        let result: { success: boolean; exception?: string };
        try {
          runInContext(String(data.code ?? ''), repl.context, { timeout: 1000 });
          result = { success: true };
        } catch (error) {
          result = { success: false, exception: error instanceof Error ? error.message : String(error) };
        }
        const done = repl.iteration >= MAX_ITERATIONS;
        const body = observation(repl, { ...result, execution_time: (performance.now() - started) / 1000 });
        const reward = result.success ? 0.25 : -0.25;
        episodeReward = (episodeReward ?? 0) + reward;
        send('observation', { observation: body, reward, done });
      } else if (message.type === 'state') {
        send('state', { episode_id: null, step_count: repl?.iteration ?? 0 });
      } else if (message.type === 'close') {
        socket.close();
      } else {
        send('error', { message: `unknown message type ${message.type}`, code: 'UNKNOWN_TYPE' });
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    served,
    episodeRewards,
    open: () => wss.clients.size,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function observation(
  repl: { context: object; output: string[]; iteration: number; globals: Set<string> },
  result: { success: boolean; exception?: string; execution_time?: number },
) {
  const stdout = repl.output.join('\n');
  return {
    result: {
      stdout,
      stderr: result.exception ?? '',
      locals_snapshot: {},
      execution_time: result.execution_time ?? 0,
      success: result.success,
      exception: result.exception ?? null,
    },
    context_length: String((repl.context as { context: string }).context).length,
    available_variables: Object.keys(repl.context).filter((name) => !repl.globals.has(name)),
    iteration: repl.iteration,
    max_iterations: MAX_ITERATIONS,
  };
}

/** 1 when `answer` (trimmed) is one of the context's words, case aside; else 0. */
function isWordOf(answer: string, context: string): number {
  const word = answer.trim().toLowerCase();
  if (word === '') return 0;
  return context
    .toLowerCase()
    .split(/[^\p{L}\p{N}'-]+/u)
    .includes(word)
    ? 1
    : 0;
}
