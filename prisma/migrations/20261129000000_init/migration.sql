-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('pending', 'running', 'stopping', 'stopped', 'completed', 'failed');

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'pending',
    "step" INTEGER NOT NULL DEFAULT 0,
    "policyVersion" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PolicyVersion" (
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "checkpointPath" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyVersion_pkey" PRIMARY KEY ("runId","version")
);

-- CreateTable
CREATE TABLE "Step" (
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "loss" DOUBLE PRECISION NOT NULL,
    "kl" DOUBLE PRECISION NOT NULL,
    "clipRatio" DOUBLE PRECISION NOT NULL,
    "rewardMean" DOUBLE PRECISION NOT NULL,
    "rewardStd" DOUBLE PRECISION NOT NULL,
    "fracRewardZeroStd" DOUBLE PRECISION NOT NULL,
    "groupsSubmitted" INTEGER NOT NULL,
    "groupsTrainable" INTEGER NOT NULL,
    "tokens" INTEGER NOT NULL,
    "timings" JSONB NOT NULL,
    "metrics" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Step_pkey" PRIMARY KEY ("runId","step")
);

-- CreateTable
CREATE TABLE "RewardComponentStat" (
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "component" TEXT NOT NULL,
    "mean" DOUBLE PRECISION NOT NULL,
    "std" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "RewardComponentStat_pkey" PRIMARY KEY ("runId","step","component")
);

-- CreateTable
CREATE TABLE "Episode" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "groupId" TEXT NOT NULL,
    "sampleIndex" INTEGER NOT NULL,
    "taskId" TEXT NOT NULL,
    "taskType" TEXT NOT NULL,
    "contextTokens" INTEGER NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "reward" DOUBLE PRECISION NOT NULL,
    "rewardCorrectness" DOUBLE PRECISION NOT NULL,
    "rewardFormat" DOUBLE PRECISION NOT NULL,
    "rewardTokenBudget" DOUBLE PRECISION NOT NULL,
    "rewardRecursionEfficiency" DOUBLE PRECISION NOT NULL,
    "llmCalls" INTEGER NOT NULL,
    "tokens" INTEGER NOT NULL,
    "turns" INTEGER NOT NULL,
    "answer" TEXT,
    "goldAnswer" TEXT NOT NULL,
    "transcript" JSONB NOT NULL,
    "recursionTree" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Episode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalResult" (
    "id" BIGSERIAL NOT NULL,
    "evalId" TEXT NOT NULL,
    "runId" TEXT,
    "checkpoint" TEXT NOT NULL,
    "split" TEXT NOT NULL,
    "taskType" TEXT NOT NULL,
    "lengthBucket" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "accuracy" DOUBLE PRECISION NOT NULL,
    "meanTokens" DOUBLE PRECISION NOT NULL,
    "meanLlmCalls" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EvalResult_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Episode_runId_step_idx" ON "Episode"("runId", "step");

-- CreateIndex
CREATE INDEX "Episode_runId_taskType_idx" ON "Episode"("runId", "taskType");

-- CreateIndex
CREATE INDEX "Episode_runId_reward_idx" ON "Episode"("runId", "reward");

-- CreateIndex
CREATE UNIQUE INDEX "Episode_runId_step_groupId_sampleIndex_key" ON "Episode"("runId", "step", "groupId", "sampleIndex");

-- CreateIndex
CREATE INDEX "EvalResult_checkpoint_idx" ON "EvalResult"("checkpoint");

-- CreateIndex
CREATE UNIQUE INDEX "EvalResult_evalId_taskType_lengthBucket_key" ON "EvalResult"("evalId", "taskType", "lengthBucket");

-- AddForeignKey
ALTER TABLE "PolicyVersion" ADD CONSTRAINT "PolicyVersion_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Step" ADD CONSTRAINT "Step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RewardComponentStat" ADD CONSTRAINT "RewardComponentStat_runId_step_fkey" FOREIGN KEY ("runId", "step") REFERENCES "Step"("runId", "step") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Episode" ADD CONSTRAINT "Episode_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvalResult" ADD CONSTRAINT "EvalResult_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;
