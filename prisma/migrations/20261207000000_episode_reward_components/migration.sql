-- Reward components become one JSONB map on Episode (name -> value), so adding a component needs no migration.
-- The four per-component columns move into the map, then go.
ALTER TABLE "Episode" ADD COLUMN "rewardComponents" JSONB;

UPDATE "Episode" SET "rewardComponents" = jsonb_build_object(
    'correctness', "rewardCorrectness",
    'token_budget', "rewardTokenBudget",
    'recursion_efficiency', "rewardRecursionEfficiency",
    'format', "rewardFormat"
);

ALTER TABLE "Episode" ALTER COLUMN "rewardComponents" SET NOT NULL;

ALTER TABLE "Episode"
    DROP COLUMN "rewardCorrectness",
    DROP COLUMN "rewardFormat",
    DROP COLUMN "rewardTokenBudget",
    DROP COLUMN "rewardRecursionEfficiency";
