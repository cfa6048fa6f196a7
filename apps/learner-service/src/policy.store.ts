import { paramSpecs, toHfConfig, type Checkpoint } from '@fathom/model';
import type { PolicySnapshot, PolicySource } from '@fathom/rpc';

/**
 * The policy versions the learner serves to rollout workers (gRPC Policy): a copy of the weights of each of the
 * newest `keep` versions of every run (`keep` = the run's maxStaleness + 1 covers every group the learner may still
 * accept). A version older than those is 'evicted' (FAILED_PRECONDITION: a group that
 * old could not be trained on anyway under maxStaleness); one never produced is unknown (NOT_FOUND).
 */
export class PolicyStore implements PolicySource {
  private readonly runs = new Map<string, { newest: number; versions: Map<number, PolicySnapshot> }>();

  /** Makes `version` of `runId` the newest, copying the live weights of `model`; keeps the newest `keep` versions. */
  publish(
    runId: string,
    version: number,
    step: number,
    model: Checkpoint,
    checkpointPath: string | null,
    keep: number,
  ): void {
    const snapshot: PolicySnapshot = {
      runId,
      version,
      step,
      checkpointPath,
      configJson: JSON.stringify(toHfConfig(model.config)),
      tensors: paramSpecs(model.config).map((spec) => {
        const data = model.params.get(spec.name);
        if (data === undefined) throw new Error(`run ${runId} version ${version}: the model has no ${spec.name}`);
        return { name: spec.name, shape: [...spec.shape], data: data.slice() };
      }),
    };
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { newest: version, versions: new Map() };
      this.runs.set(runId, run);
    }
    run.versions.set(version, snapshot);
    run.newest = Math.max(run.newest, version);
    for (const v of run.versions.keys()) if (v <= run.newest - Math.max(1, keep)) run.versions.delete(v);
  }

  /** Forgets a run (it finished or stopped); its versions are then unknown until it publishes again. */
  drop(runId: string): void {
    this.runs.delete(runId);
  }

  latest(runId: string): PolicySnapshot | undefined {
    const run = this.runs.get(runId);
    return run?.versions.get(run.newest);
  }

  get(runId: string, version: number): PolicySnapshot | 'evicted' | undefined {
    const run = this.runs.get(runId);
    if (run === undefined || version > run.newest) return undefined;
    return run.versions.get(version) ?? 'evicted';
  }
}
