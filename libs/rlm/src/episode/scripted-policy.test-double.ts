import { IM_END, IM_START } from '../prompt';
import type { EpisodeTask } from './episode.runner';
import type { Policy, PolicyTokenizer, SampledContinuation, SampleRequest, SamplingParams } from './policy';

/** What a script sees for one continuation it must write. */
export interface ScriptCall {
  /** The prompt decoded (the whole conversation so far, ChatML). */
  prompt: string;
  /** Index of this continuation among the request's n (shared-prefill rows). */
  row: number;
  /** The request's seed. */
  seed: number;
  /** How many times `sample` has been called before this one. */
  call: number;
}

/** What scripts read off their prompt, and how they write a code turn. */
export const scriptText = {
  /** Model turns already in the prompt (the assistant headers, less the one being answered). */
  turnsSoFar: (prompt: string): number => prompt.split(`${IM_START}assistant`).length - 2,
  /** What the last observation printed, if the prompt has one. */
  lastOutput: (prompt: string): string | undefined =>
    /Output:\n([^]*?)<\|im_end\|>/.exec(prompt.slice(prompt.lastIndexOf('Output:')))?.[1],
  /** A turn with one ```js block of `code`. */
  js: (code: string): string => `Let me look.\n\`\`\`js\n${code}\n\`\`\``,
};

/** A short task whose answer is "teal", for scripted episodes. */
export const MIRROR_TASK: EpisodeTask = {
  id: 'episode-test-1',
  question: 'What color is the mirror?',
  context: 'Filler text. The mirror is teal. More filler text about lamps and chairs.',
  contextTokens: 19,
};

/**
 * A script that recurses over MIRROR_TASK: the root asks `llm("which colour?")` over 40 characters of ctx (a child
 * episode when the reader window is below 40), the child asks `llm("name it")` over 10 (a leaf read, answered
 * "teal"), and each then answers with what it printed.
 */
export function recursionScript({ prompt }: ScriptCall): string {
  const { turnsSoFar, lastOutput, js } = scriptText;
  if (prompt.includes('Answer the question about the text briefly.')) return 'teal';
  const child = prompt.includes('Question: which colour?');
  if (turnsSoFar(prompt) === 0)
    return child
      ? js('print(llm("name it", ctx.slice(0, 10)))')
      : js('const a = llm("which colour?", ctx.slice(0, 40)); print(a)');
  return `<answer>${lastOutput(prompt)}</answer>`;
}

/**
 * TEST DOUBLE — never a real policy. A deterministic policy whose "sampling" is a script: for each continuation
 * it calls `script` and returns the encoded text followed by `<|im_end|>`, cut to `maxNewTokens` (finish reason
 * `length`) when longer. Log-probs are a fixed function of the token id, so tests can check they travel intact.
 * `fail` makes a given call reject, as a crashed inference server would.
 */
export class ScriptedTestPolicy implements Policy {
  version: number;
  readonly maxLength: number;
  /** Every request received, in order (tests assert on batching). */
  readonly calls: { requests: SampleRequest[]; params: SamplingParams }[] = [];
  private readonly imEnd: number;
  private readonly fail: (call: number, requests: readonly SampleRequest[]) => boolean;

  constructor(
    readonly tokenizer: PolicyTokenizer,
    private readonly script: (call: ScriptCall) => string,
    options: {
      version?: number;
      maxLength?: number;
      fail?: (call: number, requests: readonly SampleRequest[]) => boolean;
    } = {},
  ) {
    this.version = options.version ?? 0;
    this.maxLength = options.maxLength ?? 1 << 20;
    this.fail = options.fail ?? (() => false);
    const imEnd = tokenizer.tokenId(IM_END);
    if (imEnd === undefined) throw new Error(`ScriptedTestPolicy: the tokenizer has no id for ${IM_END}`);
    this.imEnd = imEnd;
  }

  /** The log-prob the double reports for a sampled id: deterministic, negative, distinct across small ids. */
  static logprobOf(id: number): number {
    return -((id % 13) + 1) / 16;
  }

  async sample(requests: readonly SampleRequest[], params: SamplingParams): Promise<SampledContinuation[][]> {
    const call = this.calls.length;
    this.calls.push({ requests: requests.map((r) => ({ ...r, prompt: [...r.prompt] })), params });
    if (this.fail(call, requests)) throw new Error(`ScriptedTestPolicy: injected failure of call ${call}`);
    return requests.map((request) => {
      const prompt = this.tokenizer.decode(request.prompt);
      return Array.from({ length: request.n }, (_, row) => {
        const full = [...this.tokenizer.encode(this.script({ prompt, row, seed: request.seed, call })), this.imEnd];
        const tokens = full.slice(0, request.maxNewTokens);
        return {
          tokens,
          logprobs: tokens.map((id) => ScriptedTestPolicy.logprobOf(id)),
          finishReason: tokens.length === full.length ? 'stop_token' : 'length',
        };
      });
    });
  }
}
