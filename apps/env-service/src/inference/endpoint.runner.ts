import { ByteTokenizer } from '@fathom/model';
import { EpisodeRunner, TextEndpointPolicy, type EpisodeConfigInput, type TurnEvent } from '@fathom/rlm';
import type { OpenEpisodeOptions, SandboxEpisode } from '@fathom/sandbox';
import type { EnvServiceConfig } from '../config';
import { inferenceSpanRead, inferenceTextGenerate, type InferencePort } from './inference.client';

/** What the engine needs of the env-service: its config, its sandbox pool and its Inference endpoint. */
export interface EndpointRunnerDeps {
  config: EnvServiceConfig;
  pool: { openEpisode(options: OpenEpisodeOptions): Promise<SandboxEpisode> };
  inference: InferencePort;
}

/** The root episode's settings a driver sets; the sub-call settings are the service's (`LLM_*`), for every driver. */
export type RootEpisodeSettings = Omit<EpisodeConfigInput, 'subcalls' | 'maxEpisodeTokens'>;

/**
 * The one episode engine (`EpisodeRunner` of `@fathom/rlm`) as the env-service runs it, for the episodes it runs
 * itself: a /v1 chat completion, and a guest llm() call it answers (a leaf read or a child episode). The sandbox is
 * the service's pool and the policy its Inference endpoint (a `TextEndpointPolicy`, whose leaf reads are span reads
 * when the endpoint says its checkpoint has a span reader); its requests are labelled with `episodeId` and `depth`.
 * Sub-calls follow LLM_READER_WINDOW_CHARS, LLM_MAX_TOKENS and LLM_CHILD_TURNS, and every episode fits
 * LLM_CONTEXT_TOKENS. Rejects when the endpoint cannot say whether it has a span reader (`inferenceSpanRead`).
 */
export async function endpointRunner(
  deps: EndpointRunnerDeps,
  episodeId: string,
  depth: number,
  settings: RootEpisodeSettings,
  onTurn?: (event: TurnEvent) => void,
): Promise<EpisodeRunner> {
  const { config, pool, inference } = deps;
  const spanRead = await inferenceSpanRead(inference, episodeId, depth);
  const policy = new TextEndpointPolicy(
    inferenceTextGenerate(inference, episodeId, depth),
    TOKENIZER,
    config.LLM_CONTEXT_TOKENS,
    0,
    spanRead,
  );
  return new EpisodeRunner(
    { sandbox: pool, policy, onTurn },
    {
      ...settings,
      maxEpisodeTokens: config.LLM_CONTEXT_TOKENS,
      subcalls: {
        readerWindowChars: config.LLM_READER_WINDOW_CHARS,
        maxCompletionTokens: config.LLM_MAX_TOKENS,
        maxTurns: config.LLM_CHILD_TURNS,
      },
    },
  );
}

/** Turns the endpoint's text into the ids the engine keeps; stateless, so one serves every runner. */
const TOKENIZER = new ByteTokenizer();
