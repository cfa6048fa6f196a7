-- The run config's optimizer section takes the names the SFT configs and the GRPO trainer use (issue 51):
-- learningRate becomes lr, minLearningRate becomes minLr. An absent minLearningRate stays absent (constant rate).
UPDATE "Run" SET config = jsonb_set(
    config,
    '{optimizer}',
    (config -> 'optimizer') - 'learningRate' - 'minLearningRate'
        || jsonb_strip_nulls(jsonb_build_object(
            'lr', config -> 'optimizer' -> 'learningRate',
            'minLr', config -> 'optimizer' -> 'minLearningRate'
        ))
)
WHERE jsonb_typeof(config -> 'optimizer') = 'object'
    AND config -> 'optimizer' ?| ARRAY['learningRate', 'minLearningRate'];
