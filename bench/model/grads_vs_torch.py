"""Checks FATHOM's train-step gradients against PyTorch's autograd in float64, on the parameters and batch that
grads.ts wrote: the loss, then per parameter the largest absolute difference relative to the largest PyTorch
gradient, and the cosine between the two. One JSON line; exit status 1 if any tensor is off by more than --tolerance.

    node --no-node-snapshot --import tsx bench/model/grads.ts --checkpoint data/checkpoints/default
    /usr/bin/python3 bench/model/grads_vs_torch.py [out/grads.safetensors] [--tolerance 1e-4]
"""

import argparse
import json
import struct
import sys

import numpy as np
import torch

from torch_model import CausalLm

parser = argparse.ArgumentParser()
parser.add_argument("file", nargs="?", default="out/grads.safetensors")
parser.add_argument("--tolerance", type=float, default=1e-4)
args = parser.parse_args()

with open(args.file, "rb") as f:
    raw = f.read()
(header_len,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8 : 8 + header_len])
meta = header.pop("__metadata__")
data = {
    name: np.frombuffer(raw[8 + header_len + e["data_offsets"][0] : 8 + header_len + e["data_offsets"][1]], "<f4")
    for name, e in header.items()
}
model = CausalLm(json.loads(meta["config"])).double()
own = dict(model.named_parameters())
with torch.no_grad():
    for name, p in own.items():
        p.copy_(torch.from_numpy(data[f"param.{name}"].astype(np.float64)).view(p.shape))
b, t = header["ids"]["shape"]
ids = torch.from_numpy(data["ids"].astype(np.int64)).view(b, t)
targets = torch.from_numpy(data["targets"].astype(np.int64)).view(b, t)
loss = -model(ids).log_softmax(-1).gather(-1, targets.unsqueeze(-1)).mean()
loss.backward()
rows = []
for name, p in own.items():
    ours = p.grad.flatten().numpy()
    theirs = data[f"grad.{name}"].astype(np.float64)
    relative = float(np.abs(ours - theirs).max() / (np.abs(ours).max() + 1e-30))
    cosine = float(ours @ theirs / (np.linalg.norm(ours) * np.linalg.norm(theirs) + 1e-30))
    rows.append((relative, cosine, name))
worst = max(rows)
print(
    json.dumps(
        {
            "bench": "grads_vs_torch",
            "batch": b,
            "length": t,
            "loss": float(meta["loss"]),
            "loss_torch": loss.item(),
            "tensors": len(rows),
            "max_relative": worst[0],
            "worst_tensor": worst[2],
            "min_cosine": min(r[1] for r in rows),
            "torch": torch.__version__,
        }
    )
)
sys.exit(0 if worst[0] <= args.tolerance and abs(float(meta["loss"]) - loss.item()) <= args.tolerance else 1)
