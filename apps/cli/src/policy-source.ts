import { relative } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { ByteTokenizer } from '@fathom/model';
import {
  DEFAULT_PROMPT_STYLE,
  OpenAiChatClient,
  openAiLabel,
  parseOpenAiSpec,
  TextEndpointPolicy,
  type OpenAiEndpoint,
  type EpisodeConfigInput,
  type OpenAiUsage,
  type Policy,
  type PromptStyle,
} from '@fathom/rlm';
import { DEFAULT_POLICY_DIR, loadPolicy } from '@fathom/training';

/** The commander parser of every `openai:URL#MODEL` flag (`--policy`, `--subcalls`); commander names the flag. */
export function openAiSpec(value: string): OpenAiEndpoint {
  try {
    return parseOpenAiSpec(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** A model on an OpenAI-compatible server as a policy, with the client whose `usage` the reports print. */
export interface EndpointPolicy {
  policy: Policy;
  client: OpenAiChatClient;
}

/**
 * The endpoint as a `Policy`. FATHOM's byte tokenizer (the shipped model's) keeps the episode's ids, so turn and
 * episode budgets are counted in its tokens (UTF-8 bytes), whatever the served model's tokenizer; the server's own
 * token counts are in the client's `usage`. The endpoint enforces its context length itself (an error names it), so
 * the policy claims no limit of its own. `$OPENAI_API_KEY`, when set, is sent as the bearer key.
 */
export function endpointPolicy(endpoint: OpenAiEndpoint, version = 0): EndpointPolicy {
  const client = new OpenAiChatClient(endpoint, { apiKey: process.env.OPENAI_API_KEY || undefined });
  const policy = new TextEndpointPolicy(client.generate, new ByteTokenizer(), Number.MAX_SAFE_INTEGER, version);
  return { client, policy };
}

/** The policy that writes an episode's turns: a checkpoint folder or an endpoint, and how reports name it. */
export interface RootPolicy {
  policy: Policy;
  promptStyle: PromptStyle;
  /** The checkpoint folder, or `openai:MODEL@URL`. */
  label: string;
  /** The endpoint's client; null for a checkpoint. */
  client: OpenAiChatClient | null;
  release(): Promise<void>;
}

/**
 * Loads the root policy of `fathom eval` / `fathom ask`: at most one of a checkpoint folder (run with the prompt style
 * it was trained with) or an `openai:` endpoint (the full prompt style unless `promptStyle` says otherwise); neither is
 * the shipped default model (`DEFAULT_POLICY_DIR`, a root with its paired span reader).
 */
export async function loadRootPolicy(options: {
  checkpoint?: string;
  policy?: OpenAiEndpoint;
  promptStyle?: PromptStyle['system'];
  version?: number;
}): Promise<RootPolicy> {
  const { policy: endpoint } = options;
  if (options.checkpoint !== undefined && endpoint !== undefined)
    throw new InvalidArgumentError('give --checkpoint <dir> or --policy openai:URL#MODEL, not both');
  const checkpoint = endpoint === undefined ? (options.checkpoint ?? DEFAULT_POLICY_DIR) : undefined;
  if (endpoint !== undefined) {
    const { policy, client } = endpointPolicy(endpoint, options.version);
    return {
      policy,
      client,
      label: openAiLabel(endpoint),
      promptStyle: { ...DEFAULT_PROMPT_STYLE, ...(options.promptStyle && { system: options.promptStyle }) },
      release: async () => undefined,
    };
  }
  const loaded = await loadPolicy(checkpoint!, { version: options.version, promptStyle: options.promptStyle });
  return { ...loaded, label: options.checkpoint ?? relative(process.cwd(), checkpoint!), client: null };
}

/** One line of an endpoint's spend: requests, retries and the server's token counts. */
export function formatUsage(label: string, usage: OpenAiUsage): string {
  return (
    `${label}: ${usage.requests} requests (${usage.retries} retries), ` +
    `${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens`
  );
}

/** Who answers leaf `llm()` reads when the root policy does not: an endpoint or a local checkpoint. */
export interface LeafReader {
  policy: Policy;
  /** The endpoint's policy and client (`--subcalls`); null for a checkpoint (`--reader-checkpoint`). */
  endpoint: EndpointPolicy | null;
  release(): Promise<void>;
}

/** The leaf reader of `fathom eval` / `fathom ask`: at most one of `--subcalls` and `--reader-checkpoint`; null for neither. */
export async function loadLeafReader(options: {
  subcalls?: OpenAiEndpoint;
  checkpoint?: string;
  version?: number;
}): Promise<LeafReader | null> {
  const { subcalls, checkpoint } = options;
  if (subcalls !== undefined && checkpoint !== undefined)
    throw new InvalidArgumentError('give --subcalls or --reader-checkpoint, not both');
  if (subcalls !== undefined) {
    const endpoint = endpointPolicy(subcalls, options.version);
    return { policy: endpoint.policy, endpoint, release: async () => undefined };
  }
  if (checkpoint === undefined) return null;
  const loaded = await loadPolicy(checkpoint, { version: options.version });
  return { policy: loaded.policy, endpoint: null, release: loaded.release };
}

/**
 * The episode config's `subcalls` section for `--reader-window`, `--extractive-reads` and `--leaf-temperature`;
 * nothing when none is given.
 */
export function subcallsInput(flags: {
  readerWindow?: number;
  extractiveReads?: boolean;
  leafTemperature?: number;
}): EpisodeConfigInput {
  if (flags.readerWindow === undefined && !flags.extractiveReads && flags.leafTemperature === undefined) return {};
  return {
    subcalls: {
      ...(flags.readerWindow !== undefined && { readerWindowChars: flags.readerWindow }),
      ...(flags.extractiveReads && { extractive: true }),
      ...(flags.leafTemperature !== undefined && { leafTemperature: flags.leafTemperature }),
    },
  };
}
