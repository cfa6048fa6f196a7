#!/usr/bin/env bash
# GRPO of the reader (configs/grpo/reader-grpo.json): data/checkpoints/reader is the trained policy and answers every
# leaf llm() read, extractively and sampled at temperature 1, while the frozen data/checkpoints/search-grpo writes the
# turns greedily; each episode's correctness is the advantage of its reads. 1,000 train tasks of the three one-key
# types (niah, extractive, tracking; seed 1, contexts 4K-32K tokens), 100 steps of B = 8 prompts x G = 8 episodes.
# Measured results are in docs/RESULTS.md. The checkpoint is out/grpo/reader-grpo/final (F16; committed as
# data/checkpoints/reader-grpo).
set -euo pipefail
exec bash "$(dirname "$0")/reproduce-search-grpo.sh" configs/grpo/reader-grpo.json
