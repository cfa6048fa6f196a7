import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  createDefaultModel,
  DEFAULT_CONFIG_PATH,
  generate,
  growDepth,
  loadCheckpoint,
  loadTokenizer,
  trainBpe,
  ModelGraphs,
  saveCheckpoint,
  serializeSafetensors,
  TokenBatchFileSchema,
  toTrainBatch,
  countParams,
  type Checkpoint,
  type SafetensorsDtype,
} from '@fathom/model';
import { readPromptStyle, writePromptStyle } from '@fathom/training';
import { number } from './args';

function tokensOf(checkpoint: Checkpoint, flags: { tokens?: string; text?: string; prompt?: string }): number[] {
  if (flags.tokens !== undefined) {
    return flags.tokens.split(',').map((s) => {
      if (!/^\s*\d+\s*$/.test(s)) throw new InvalidArgumentError(`--tokens must be comma-separated ids, got "${s}"`);
      return Number(s);
    });
  }
  const text = flags.text ?? flags.prompt;
  if (text === undefined) throw new InvalidArgumentError('give --tokens or --text');
  if (!checkpoint.tokenizer) throw new InvalidArgumentError('the checkpoint has no tokenizer.json; use --tokens');
  return checkpoint.tokenizer.encode(text);
}

/** Every string value of every line of a JSON-lines file (nested ones included), as tokenizer training text. */
function jsonLinesStrings(text: string, file: string, maxLines = Infinity): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  lines.slice(0, maxLines).forEach((line, i) => {
    try {
      walk(JSON.parse(line));
    } catch {
      throw new InvalidArgumentError(`${file}:${i + 1} is not JSON`);
    }
  });
  return out;
}

export function modelCommand(): Command {
  const model = new Command('model').description(
    'Create, inspect and run policy models (Hugging Face-style checkpoints).',
  );

  model
    .command('init')
    .description(
      'Write a freshly initialised model (config.json, model.safetensors, byte-level tokenizer) to a folder.',
    )
    .option('--config <file>', 'a Hugging Face config.json (LlamaForCausalLM or Qwen2ForCausalLM)', DEFAULT_CONFIG_PATH)
    .requiredOption('--out <dir>', 'checkpoint folder to write')
    .option('--seed <n>', 'initialisation seed', number('--seed'), 0)
    .option(
      '--tokenizer <dir>',
      'a folder with a tokenizer.json (e.g. from `fathom model tokenizer`); the vocabulary is sized to it',
    )
    .addOption(new Option('--dtype <dtype>', 'tensor dtype on disk').choices(['F32', 'F16', 'BF16']).default('F32'))
    .action(
      async (flags: { config: string; out: string; seed: number; tokenizer?: string; dtype: SafetensorsDtype }) => {
        const tokenizer = flags.tokenizer === undefined ? undefined : await loadTokenizer(flags.tokenizer);
        if (tokenizer === null) throw new InvalidArgumentError(`${flags.tokenizer} has no tokenizer.json`);
        const checkpoint = await createDefaultModel(flags.config, flags.seed, tokenizer);
        await saveCheckpoint(flags.out, checkpoint, flags.dtype);
        console.log(
          JSON.stringify({
            out: flags.out,
            architecture: checkpoint.config.architecture,
            vocab: checkpoint.config.vocabSize,
            params: countParams(checkpoint.config),
          }),
        );
      },
    );

  model
    .command('tokenizer')
    .description(
      'Train a byte-level BPE tokenizer on the strings of JSON-lines files (tasks, teacher data, reader examples) ' +
        'and write its tokenizer.json and tokenizer_config.json to a folder, for `fathom model init --tokenizer`.',
    )
    .requiredOption('--texts <files...>', 'JSON-lines files; every string value of every line is training text')
    .requiredOption('--vocab <n>', 'vocabulary size before the special tokens (256 bytes + merges)', number('--vocab'))
    .option('--max-lines <n>', 'read at most this many lines of each file', number('--max-lines'))
    .requiredOption('--out <dir>', 'folder to write')
    .action(async (flags: { texts: string[]; vocab: number; maxLines?: number; out: string }) => {
      const texts: string[] = [];
      for (const file of flags.texts)
        for (const t of jsonLinesStrings(await readFile(file, 'utf8'), file, flags.maxLines)) texts.push(t);
      const bar = new SingleBar({ stream: process.stderr, format: 'merges [{bar}] {value}/{total}', hideCursor: true });
      bar.start(Math.max(0, flags.vocab - 256), 0);
      const files = trainBpe(texts, { vocabSize: flags.vocab, onMerge: (n) => bar.update(n) });
      bar.stop();
      await mkdir(flags.out, { recursive: true });
      for (const [name, content] of Object.entries(files))
        await writeFile(join(flags.out, name), `${JSON.stringify(content, null, 2)}\n`);
      const tokenizer = await loadTokenizer(flags.out);
      const chars = texts.reduce((n, t) => n + t.length, 0);
      const tokens = texts.reduce((n, t) => n + (tokenizer?.encode(t).length ?? 0), 0);
      console.log(
        JSON.stringify({
          out: flags.out,
          vocab: tokenizer?.vocabSize,
          texts: texts.length,
          chars_per_token: chars / tokens,
        }),
      );
    });

  model
    .command('grow')
    .description(
      'Deepen a checkpoint without changing its outputs: new blocks copy the one before them with their output ' +
        'projections zeroed (block expansion). Tokenizer, generation config and prompt style are carried over.',
    )
    .requiredOption('--checkpoint <dir>', 'checkpoint folder to grow')
    .requiredOption(
      '--layers <n>',
      'decoder layers of the grown model (more than the checkpoint has)',
      number('--layers'),
    )
    .requiredOption('--out <dir>', 'checkpoint folder to write')
    .addOption(new Option('--dtype <dtype>', 'tensor dtype on disk').choices(['F32', 'F16', 'BF16']).default('F32'))
    .action(async (flags: { checkpoint: string; layers: number; out: string; dtype: SafetensorsDtype }) => {
      const checkpoint = await loadCheckpoint(flags.checkpoint);
      const grown = growDepth(checkpoint, flags.layers);
      await saveCheckpoint(flags.out, grown, flags.dtype);
      const style = await readPromptStyle(flags.checkpoint);
      if (style !== null) await writePromptStyle(flags.out, style);
      console.log(
        JSON.stringify({
          out: flags.out,
          layers: `${checkpoint.config.numLayers} -> ${grown.config.numLayers}`,
          params: `${countParams(checkpoint.config)} -> ${countParams(grown.config)}`,
        }),
      );
    });

  model
    .command('logits')
    .description("Print the last position's logits as JSON.")
    .requiredOption('--checkpoint <dir>', 'checkpoint folder')
    .option('--tokens <ids>', 'comma-separated token ids, e.g. 1,2,3')
    .option('--text <text>', 'text to encode with the checkpoint tokenizer')
    .action(async (flags: { checkpoint: string; tokens?: string; text?: string }) => {
      const checkpoint = await loadCheckpoint(flags.checkpoint);
      const tokens = tokensOf(checkpoint, flags);
      const graphs = new ModelGraphs(checkpoint.config);
      const all = await graphs.logits(checkpoint.params, tokens, 1, tokens.length);
      const v = checkpoint.config.vocabSize;
      console.log(
        JSON.stringify({
          tokens,
          position: tokens.length - 1,
          logits: Array.from(all.subarray((tokens.length - 1) * v)),
        }),
      );
      await graphs.release();
    });

  model
    .command('generate')
    .description('Sample completions of a prompt with the KV-cache decoder; prints one JSON line per completion.')
    .requiredOption('--checkpoint <dir>', 'checkpoint folder')
    .option('--prompt <text>', 'prompt text (encoded with the checkpoint tokenizer)')
    .option('--tokens <ids>', 'prompt as comma-separated token ids')
    .option('-n, --max-new-tokens <n>', 'tokens to generate', number('-n'), 64)
    .option('--samples <g>', 'completions sharing one prefill', number('--samples'), 1)
    .option('--temperature <t>', 'softmax temperature (0 = greedy)', number('--temperature'), 1)
    .option('--top-p <p>', 'nucleus sampling threshold', number('--top-p'), 1)
    .option('--top-k <k>', 'keep the k most likely tokens (0 = off)', number('--top-k'), 0)
    .option('--stop <s...>', 'stop strings')
    .option('--seed <n>', 'sampling seed', number('--seed'), 0)
    .action(
      async (flags: {
        checkpoint: string;
        prompt?: string;
        tokens?: string;
        maxNewTokens: number;
        samples: number;
        temperature: number;
        topP: number;
        topK: number;
        stop?: string[];
        seed: number;
      }) => {
        const checkpoint = await loadCheckpoint(flags.checkpoint);
        const prompt = tokensOf(checkpoint, flags);
        const graphs = new ModelGraphs(checkpoint.config);
        const started = performance.now();
        const completions = await generate(
          graphs.decoder(checkpoint.params),
          prompt,
          {
            n: flags.samples,
            maxNewTokens: flags.maxNewTokens,
            temperature: flags.temperature,
            topP: flags.topP,
            topK: flags.topK,
            stopTokens: checkpoint.config.eosTokenIds,
            stopStrings: flags.stop,
            seed: flags.seed,
          },
          checkpoint.tokenizer ?? undefined,
        );
        const seconds = (performance.now() - started) / 1000;
        for (const c of completions) console.log(JSON.stringify(c));
        const tokens = completions.reduce((n, c) => n + c.tokens.length, 0);
        console.error(`generated ${tokens} tokens in ${seconds.toFixed(2)} s`);
        await graphs.release();
      },
    );

  model
    .command('grads')
    .description(
      'Loss and gradients of a JSON token batch ({ids, targets?, weights?}); writes the gradients as safetensors.',
    )
    .requiredOption('--checkpoint <dir>', 'checkpoint folder')
    .requiredOption('--batch <file>', 'JSON batch file')
    .requiredOption('--out <file>', 'gradients .safetensors to write')
    .action(async (flags: { checkpoint: string; batch: string; out: string }) => {
      const checkpoint = await loadCheckpoint(flags.checkpoint);
      const parsed = TokenBatchFileSchema.safeParse(JSON.parse(await readFile(flags.batch, 'utf8')));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InvalidArgumentError(`${flags.batch}: field '${issue.path.join('.')}': ${issue.message}`);
      }
      const { batch, tokenWeights } = toTrainBatch(parsed.data);
      const graphs = new ModelGraphs(checkpoint.config);
      const result = await graphs.trainStep(checkpoint.params, batch, tokenWeights);
      const tensors = graphs.trainableSpecs.map((s) => ({
        name: s.name,
        shape: s.shape,
        data: result.grads.get(s.name)!,
      }));
      await writeFile(flags.out, serializeSafetensors(tensors));
      console.log(JSON.stringify({ loss: result.loss, tensors: tensors.length, out: flags.out }));
      await graphs.release();
    });

  return model;
}
