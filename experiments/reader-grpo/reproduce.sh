#!/usr/bin/env bash
# GRPO of the reader (experiments/reader-grpo/grpo/reader-grpo.json): the reader of experiments/reader is the trained policy and answers every
# leaf llm() read, extractively and sampled at temperature 1, while the frozen search-grpo root writes the
# turns greedily; each episode's correctness is the advantage of its reads. 1,000 train tasks of the three one-key
# types (niah, extractive, tracking; seed 1, contexts 4K-32K tokens), 100 steps of B = 8 prompts x G = 8 episodes.
# Measured results are in experiments/reader-grpo/NOTE.md. The checkpoint is out/grpo/reader-grpo/final (F16;
# committed as data/checkpoints/reader-grpo until 8afa168).
set -euo pipefail
exec bash "$(dirname "$0")/../search-grpo/reproduce.sh" experiments/reader-grpo/grpo/reader-grpo.json
