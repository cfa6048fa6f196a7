import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunConfigSchema } from '@fathom/contracts';
import { saveCheckpoint, createDefaultModel } from '@fathom/model';
import { describe, expect, it } from 'vitest';
import { writePromptStyle } from '../prompt-style.file';
import { tinyTasks } from '../testing/fixtures';
import { defaultRunFolder, grpoTrainConfigOfRun, loadRunConfig, runCheckpointDir, runTasks } from './run.config';

const repoDir = fileURLToPath(new URL('../../../../', import.meta.url));
const shippedDir = join(repoDir, 'configs', 'grpo');
const readerExtGrpo = join(repoDir, 'experiments', 'reader-ext', 'grpo', 'reader-ext-grpo.json');

/** Every GRPO run config in the repository: the product's (configs/grpo/) and the kept experiments' (experiments/<name>/grpo/). */
function runConfigFiles(): string[] {
  const experiments = join(repoDir, 'experiments');
  const dirs = [shippedDir, ...readdirSync(experiments).map((name) => join(experiments, name, 'grpo'))];
  return dirs
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => readdirSync(dir).map((file) => join(dir, file)))
    .filter((file) => file.endsWith('.json'));
}

async function checkpointDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fathom-runcfg-'));
  await saveCheckpoint(dir, await createDefaultModel(), 'F32');
  return dir;
}

describe('a service run config as a fathom train config', () => {
  it('maps every section, taking the prompt style from the checkpoint when the run names none', async () => {
    const dir = await checkpointDir();
    await writePromptStyle(dir, { system: 'compact', previewChars: 40 });
    const run = RunConfigSchema.parse({
      name: 'r',
      seed: 9,
      model: { checkpoint: dir, readerCheckpoint: dir },
      steps: 5,
      batchSize: 3,
      grpo: { groupSize: 4, maxStaleness: 1 },
      optimizer: { lr: 1e-4, warmupSteps: 2, minLr: 1e-5 },
      rollout: {
        maxTurns: 2,
        maxTokensPerTurn: 64,
        maxEpisodeTokens: 900,
        maxDepth: 1,
        extractiveReads: true,
        leafTemperature: 0,
      },
      learner: { microBatchSize: 2, padMultiple: 32, minOkSamples: 3, entropy: false },
    });
    const config = await grpoTrainConfigOfRun(run, '/tmp/out');
    expect(config).toMatchObject({
      model: { checkpoint: dir, readerCheckpoint: dir },
      data: { tasks: '/tmp/out/tasks.jsonl' },
      steps: 5,
      batchSize: 3,
      seed: 9,
      out: '/tmp/out',
      minOkSamples: 3,
      microBatchSize: 2,
      padMultiple: 32,
      entropy: false,
      grpo: { groupSize: 4, maxStaleness: 1 },
      optimizer: { lr: 1e-4, warmupSteps: 2, minLr: 1e-5, beta2: 0.99 },
      episode: {
        maxTurns: 2,
        maxTokensPerTurn: 64,
        maxEpisodeTokens: 900,
        promptStyle: { system: 'compact', previewChars: 40 },
        sampling: { temperature: 1, topP: 1, topK: 0 },
        sandboxLimits: { maxDepth: 1 },
        subcalls: { extractive: true, leafTemperature: 0 },
        trainSubcalls: false,
      },
    });
    const named = RunConfigSchema.parse({
      name: 'r',
      model: { checkpoint: dir },
      rollout: { promptStyle: { system: 'full', previewChars: 8 } },
    });
    expect((await grpoTrainConfigOfRun(named, 'o')).episode.promptStyle).toEqual({
      system: 'full',
      previewChars: 8,
    });
  });

  it('maps a frozen root that writes greedily while the trained reads sample at temperature 1', async () => {
    const dir = await checkpointDir();
    const run = RunConfigSchema.parse({
      name: 'r',
      model: { checkpoint: dir, rootCheckpoint: dir },
      rollout: { trainSubcalls: true, extractiveReads: true, temperature: 0, leafTemperature: 1 },
    });
    expect((await grpoTrainConfigOfRun(run, 'o')).episode).toMatchObject({
      trainRoot: false,
      trainSubcalls: true,
      sampling: { temperature: 0 },
      subcalls: { extractive: true, leafTemperature: 1 },
    });
  });

  it('names a missing checkpoint or reader checkpoint', async () => {
    const run = RunConfigSchema.parse({ name: 'r', model: { checkpoint: '/nowhere/at/all' } });
    expect(() => runCheckpointDir(run)).toThrow(/model\.checkpoint: no checkpoint at \/nowhere\/at\/all/);
    const reader = RunConfigSchema.parse({
      name: 'r',
      model: { checkpoint: await checkpointDir(), readerCheckpoint: '/no/reader' },
    });
    await expect(grpoTrainConfigOfRun(reader, 'o')).rejects.toThrow(
      /model\.readerCheckpoint: no checkpoint at \/no\/reader/,
    );
  });

  it('reads the first trainSize tasks of a file, or generates them deterministically from the seed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fathom-runtasks-'));
    const file = join(dir, 'tasks.jsonl');
    await writeFile(
      file,
      tinyTasks(5)
        .map((t) => JSON.stringify(t) + '\n')
        .join(''),
    );
    const fromFile = await runTasks(RunConfigSchema.parse({ name: 'r', data: { trainFile: file, trainSize: 3 } }));
    expect(fromFile.map((t) => t.id)).toEqual(['t0', 't1', 't2']);
    const generated = RunConfigSchema.parse({ name: 'r', seed: 4, data: { trainSize: 3, maxContextTokens: 4096 } });
    const a = await runTasks(generated);
    expect(a).toHaveLength(3);
    expect((await runTasks(generated)).map((t) => t.context)).toEqual(a.map((t) => t.context));
    expect(a.every((t) => t.split === 'train')).toBe(true);
  });
});

describe('a run config file (fathom train --config)', () => {
  it('loads every GRPO config of the product and the experiments as the run config POST /runs takes', async () => {
    const files = runConfigFiles();
    expect(files).toContain(join(shippedDir, 'default.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const run = await loadRunConfig(file);
      expect(RunConfigSchema.parse(run), file).toEqual(run);
    }
    const reader = await loadRunConfig(readerExtGrpo);
    expect(reader).toMatchObject({ exportDtype: 'F16', rollout: { extractiveReads: true, leafTemperature: 1 } });
  });

  it('validates --set overrides like file values, naming the file and the field', async () => {
    const file = join(shippedDir, 'default.json');
    const run = await loadRunConfig(file, [
      'steps=7',
      'grpo.groupSize=4',
      'grpo.maxStaleness=1',
      'optimizer.lr=2e-5',
      'data.trainFile=other.jsonl',
      'rollout.trainSubcalls=true',
    ]);
    expect(run).toMatchObject({
      steps: 7,
      grpo: { groupSize: 4, maxStaleness: 1, beta: 0.04 },
      optimizer: { lr: 2e-5, warmupSteps: 5 },
      data: { trainFile: 'other.jsonl', trainSize: 1000 },
      rollout: { trainSubcalls: true, maxTurns: 4 },
    });
    const refused = loadRunConfig(file, ['grpo.groupSize=1']);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    await expect(refused).rejects.toThrow(/default\.json[\s\S]*groupSize/);
    await expect(loadRunConfig(file, ['grpo.maxStaleness=-1'])).rejects.toThrow(/default\.json[\s\S]*maxStaleness/);
    await expect(loadRunConfig(file, ['rollout.maxTurnz=2'])).rejects.toThrow(
      /default\.json: override rollout\.maxTurnz: unknown key "maxTurnz" in rollout; valid keys: .*maxTurns/,
    );
    await expect(loadRunConfig(file, ['steps=many'])).rejects.toThrow(
      `${file}: override steps: expected an integer, got "many"`,
    );
  });

  it('refuses a file that is not JSON, or not an object, and a run the schema refuses', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fathom-runfile-'));
    await writeFile(join(dir, 'broken.json'), '{ "name": ');
    await expect(loadRunConfig(join(dir, 'broken.json'))).rejects.toThrow(/broken\.json/);
    await writeFile(join(dir, 'list.json'), '[]');
    await expect(loadRunConfig(join(dir, 'list.json'))).rejects.toThrow(/list\.json: the config must be a JSON object/);
    await writeFile(join(dir, 'roles.json'), JSON.stringify({ name: 'r', model: { rootCheckpoint: 'a' } }));
    await expect(loadRunConfig(join(dir, 'roles.json'))).rejects.toThrow(/trainSubcalls[\s\S]*model\.rootCheckpoint/);
  });

  it('refuses the optimizer names of before issue 51 (learningRate), naming the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fathom-runfile-'));
    const old = join(dir, 'old.json');
    await writeFile(old, JSON.stringify({ name: 'r', optimizer: { learningRate: 3e-4 } }));
    await expect(loadRunConfig(old)).rejects.toThrow(/learningRate/);
  });

  it('names the run folder after the file', () => {
    expect(defaultRunFolder('experiments/reader-ext/grpo/reader-ext-grpo.json')).toBe(
      join('out', 'grpo', 'reader-ext-grpo'),
    );
  });
});
