import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SftExample, Task } from '@fathom/contracts';
import { renderConversation, type PromptStyle } from '@fathom/rlm';
import type { ConversationLine } from '../data.source';

/** A very small Qwen2 config with room for the byte tokenizer (256 bytes + 4 specials): fast enough for tests. */
export const TINY_HF_CONFIG = {
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: 260,
  hidden_size: 32,
  intermediate_size: 64,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  head_dim: 16,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  max_position_embeddings: 768,
  tie_word_embeddings: true,
  eos_token_id: [256, 258],
};

/** The short prompt style tests render with (a few hundred byte tokens per conversation). */
export const TEST_STYLE: PromptStyle = { system: 'compact', previewChars: 12 };

const COLOURS = ['red', 'blue', 'green', 'amber'];
const OBJECTS = ['mirror', 'kettle', 'lamp', 'vase', 'clock', 'chair'];

/** Valid tasks of the libs/tasks schema with short contexts: "What colour is the X?" answered by one sentence. */
export function tinyTasks(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => {
    const object = OBJECTS[i % OBJECTS.length];
    const colour = COLOURS[i % COLOURS.length];
    const context = `Notes ${i}. The ${object} is ${colour}. Nothing else happened.`;
    const start = context.indexOf('The');
    return {
      id: `t${i}`,
      split: 'train',
      type: 'niah',
      question: `What colour is the ${object}?`,
      context,
      answer: colour,
      aliases: [],
      context_tokens: Math.ceil(context.length / 4),
      needle_positions: [{ start, end: start + `The ${object} is ${colour}.`.length, depth: 0.1 }],
      variants: [],
    } satisfies Task;
  });
}

/** A two-turn teacher example for a tiny task: search, read the printed sentence, answer. */
export function tinyExample(task: Task): SftExample {
  const object = task.question.replace(/^What colour is the (\w+)\?$/, '$1');
  return {
    task_id: task.id,
    type: task.type,
    strategy: 'niah.test_double',
    robust: true,
    turns: [
      {
        completion: '```js\nprint(ctx.match(/The ' + object + ' is \\w+/)[0])\n```',
        observation: `The ${object} is ${task.answer}`,
      },
      { completion: `<answer>${task.answer}</answer>` },
    ],
    answer: task.answer,
    correct: true,
    subcalls: [],
  };
}

/** A pre-rendered conversations line for a task (the teacher example rendered with `style`). */
export function tinyConversationLine(task: Task, style: PromptStyle): ConversationLine {
  const prompt = { question: task.question, context: task.context, contextTokens: task.context_tokens };
  return {
    id: task.id,
    task_id: task.id,
    task: prompt,
    segments: renderConversation(prompt, tinyExample(task).turns, style),
  };
}

/** A temp folder with the tiny config.json, tasks.jsonl, sft.jsonl (teacher format) and conversations.jsonl. */
export async function writeTinyFixture(
  tasks: number,
  style: PromptStyle = TEST_STYLE,
): Promise<{ dir: string; modelConfig: string; tasks: string; examples: string; conversations: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fathom-sft-'));
  const list = tinyTasks(tasks);
  const files = {
    modelConfig: join(dir, 'config.json'),
    tasks: join(dir, 'tasks.jsonl'),
    examples: join(dir, 'sft.jsonl'),
    conversations: join(dir, 'conversations.jsonl'),
  };
  const lines = (items: unknown[]) => items.map((x) => JSON.stringify(x) + '\n').join('');
  await writeFile(files.modelConfig, JSON.stringify(TINY_HF_CONFIG));
  await writeFile(files.tasks, lines(list));
  await writeFile(files.examples, lines(list.map(tinyExample)));
  await writeFile(files.conversations, lines(list.map((t) => tinyConversationLine(t, style))));
  return { dir, ...files };
}
