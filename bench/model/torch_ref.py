"""PyTorch reference for bench/model's train_step: the same model, batch and loss, timed the same way.

The default policy model (libs/model/configs/default.json: Qwen2 layout, d=256, 4 layers, 4 heads / 2 KV heads,
FFN 768, byte vocabulary 260, tied embeddings, q/k/v biases) in float32, full causal T×T attention (no fused kernel,
as FATHOM's training graph), a token-weighted log-likelihood loss, then `backward()` for every parameter's gradient:
what `ModelGraphs.trainStep` computes. The optimizer is not timed on either side.

    /usr/bin/python3 bench/model/torch_ref.py --threads 2 --length 512 [--batch 8] [--runs 5]

Debian's torch (`apt-get install python3-torch`, 1.13.1) does its MatMuls through the system BLAS: install
`libopenblas0-pthread` too, or it runs on the reference BLAS, about 14 times slower (6.7 s against 0.49 s a step at
T=128 on one thread, measured on the 2-core machine). Run it with tcmalloc (`libtcmalloc-minimal4`,
`LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4`, as vs-torch.sh does): with glibc's malloc every
T×T tensor is a fresh mmap whose pages fault in one by one, and the step takes twice as long (2.7 s against 1.4 s at
T=512, two threads); jemalloc was slower still (4.8 s).

One JSON line, the fields named as bench/model/model.ts names them. The thread count is pinned before torch is
imported, so neither its OpenMP pool nor its inter-op pool starts wider, and idle OpenMP threads sleep. Run one
length per process, so that `peak_rss_mb` is that step's peak.
"""

import argparse
import json
import os
import resource
import statistics
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
parser.add_argument("--length", type=int, default=512)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--runs", type=int, default=5)
DEFAULT_CONFIG = os.path.join(os.path.dirname(__file__), "../../libs/model/configs/default.json")
parser.add_argument("--config", default=DEFAULT_CONFIG)
args = parser.parse_args()

os.environ["OMP_NUM_THREADS"] = str(args.threads)
os.environ["MKL_NUM_THREADS"] = str(args.threads)
os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
# Idle OpenMP threads sleep, as FATHOM's pool threads do (`spinWait` false): spinning, they and OpenBLAS's own
# threads fight over the two cores (1.55 s against 0.97 s a step at T=512, two threads).
os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

import torch  # noqa: E402  (after the thread pins above)

from torch_model import CausalLm  # noqa: E402

torch.set_num_threads(args.threads)
torch.set_num_interop_threads(1)
torch.manual_seed(0)

with open(args.config) as f:
    model = CausalLm(json.load(f))
for p in model.parameters():
    if p.dim() == 2:
        torch.nn.init.normal_(p, std=0.02)
b, t = args.batch, args.length
n = b * t
ids = torch.tensor([(i * 13) % 256 for i in range(n)]).view(b, t)
targets = torch.tensor([(i * 13 + 13) % 256 for i in range(n)]).view(b, t)
weights = torch.full((b, t), -1.0 / n)


def step():
    for p in model.parameters():
        p.grad = None
    logp = model(ids).log_softmax(-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    loss = (logp * weights).sum()
    loss.backward()
    return loss.item()


step()  # warmup, as bench/model's timeRuns
ms = []
for _ in range(args.runs):
    t0 = time.perf_counter()
    step()
    ms.append((time.perf_counter() - t0) * 1e3)

print(
    json.dumps(
        {
            "bench": "train_step_torch",
            "batch": b,
            "length": t,
            "ms": round(statistics.median(ms), 1),
            "best_ms": round(min(ms), 1),
            "tokens_per_s": round(n / (statistics.median(ms) / 1e3), 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "torch": torch.__version__,
            "allocator": os.path.basename(os.environ.get("LD_PRELOAD", "")) or "glibc",
            "threads": args.threads,
            "runs": args.runs,
            "load1": round(os.getloadavg()[0], 2),
        }
    )
)
