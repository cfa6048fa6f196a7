"""Drives FATHOM's env-service with upstream OpenEnv's own REPLEnv client, unmodified: tests/openenv/upstream holds
its files as fetched from meta-pytorch/OpenEnv (see the README there), with empty package __init__ files so that only
the client's modules load (upstream's package roots pull in its servers).

Usage: python upstream_repl_env.py BASE_URL
Prints one JSON object: what REPLEnv read from the reset, a step and state(). Needs pydantic 2, requests and
websockets >= 13 (scripts/ensure-openenv-python.sh makes a virtual environment with them).
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream"))

from repl_env.client import REPLEnv  # noqa: E402

DOCUMENT = "Ledger. " * 400 + "The vault code is 4417. " + "More ledger. " * 400
QUESTION = "What is the vault code?"
# FATHOM's REPL runs JavaScript with the document as `ctx`.
CODE = 'const hits = grep("vault code"); const code = /\\d+/.exec(hits[0].text)[0]; print(code);'


async def main(base_url: str) -> None:
    async with REPLEnv(base_url=base_url) as env:
        reset = await env.reset(context=DOCUMENT, task_prompt=QUESTION)
        before = await env.list_variables()
        step = await env.execute(CODE)
        state = await env.state()
        print(
            json.dumps(
                {
                    "reset_context_length": reset.observation.context_length,
                    "variables_before": before,
                    "stdout": step.observation.result.stdout,
                    "locals_snapshot": step.observation.result.locals_snapshot,
                    "list_variables": await env.list_variables(),
                    "state": {
                        "namespace_keys": state.namespace_keys,
                        "iteration": state.iteration,
                        "max_iterations": state.max_iterations,
                        "context_chars": len(state.context or ""),
                        "context_start": (state.context or "")[:16],
                        "task_prompt": state.task_prompt,
                        "step_count": state.step_count,
                    },
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
