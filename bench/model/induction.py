"""Does a small model form a copy by content (an induction head), and at the pace PyTorch's would?

`write` makes the data, one text a line (`{"id", "text"}`, what `fathom sft` reads with `data.format` "text"):

- `repeat`: `length`/2 to `length` random lowercase letters, a space, and the same letters again. The length varies
  so that the copy is not at a fixed distance: at one length a head that attends a fixed offset back copies it
  without matching anything. A model that does not copy pays ln 26 nats a letter; one that copies pays nothing for
  the second half.
- `pairs`: 3 to `facts` pairs "k:CODE" (one letter, four of A–Z0–9), then " Again: " and the same pairs in another
  order: the code after a key is found by matching the key, which is two tokens before it.
- `drills`: the reader's recall drills (`recallDrill`, libs/tasks/src/reader-examples.ts) as one text: 2 to `facts`
  sentences "The code of the <key> is <code>." about two-word nonsense keys, most sharing their first word with
  another, then " Q: What is the code of the <key>? A: <code>" about one of them: only the asked key's code scores.

`train` trains FATHOM's model in PyTorch (`torch_model.py`) on such a file as the SFT trainer does with a plain
shuffle (`bucketWindow` 0): FATHOM's initialisation (normal 0.02, output projections scaled by 1/sqrt(2 layers),
unit norms, zero biases), bytes only, every position after the first trained and the loss their mean, AdamW with
decay on matrices and embeddings only, a global gradient-norm clip, linear warm-up then cosine decay. Every
`--eval-every` steps it prints a JSON line: the loss over the last 1% of the file (`eval_loss`; the SFT trainer holds
out its own 1%), and over the characters that can be copied (`copied_loss`: the second half, the codes after
"Again:", or a drill's answer), and the share of held-out texts whose copied characters are all the model's likeliest
(`copied_exact`: for drills, the greedy answer's accuracy).

    /usr/bin/python3 bench/model/induction.py write --kind repeat --n 60000 --length 32 --seed 4 --out F
    /usr/bin/python3 bench/model/induction.py train --texts F --config C --steps 1000 --batch 32 --lr 1e-3 \
        --warmup 50 --min-lr 1e-4 --threads 2 --seed 1
"""

import argparse
import json
import math
import random
import re
import sys

LETTERS = "abcdefghijklmnopqrstuvwxyz"
CODE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"


def syllable_word(rng):
    return "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(rng.randint(2, 3))) + rng.choice(
        ["", "n", "r", "l", "s"]
    )


def recall_code(rng):
    head = "".join(rng.choice(CODE_CHARS[:26]) for _ in range(rng.randint(1, 2)))
    return f"{head}{rng.randint(1, 9)}-{''.join(rng.choice(CODE_CHARS) for _ in range(3))}"


def drill(rng, facts):
    firsts = [syllable_word(rng) for _ in range(max(1, facts // 2))]
    keys = []
    while len(keys) < facts:
        key = f"{rng.choice(firsts)} {syllable_word(rng)}"
        if key not in keys:
            keys.append(key)
    codes = [recall_code(rng) for _ in keys]
    asked = rng.randrange(facts)
    sentences = " ".join(f"The code of the {k} is {c}." for k, c in zip(keys, codes))
    return f"{sentences} Q: What is the code of the {keys[asked]}? A: {codes[asked]}"


def text(rng, kind, length, facts):
    if kind == "drills":
        return drill(rng, facts)
    if kind == "repeat":
        s = "".join(rng.choice(LETTERS) for _ in range(rng.randint(length // 2, length)))
        return f"{s} {s}"
    first = [f"{k}:{''.join(rng.choice(CODE_CHARS) for _ in range(4))}" for k in rng.sample(LETTERS, facts)]
    again = first[:]
    rng.shuffle(again)
    return " ".join(first) + " Again: " + " ".join(again)


def write(args):
    rng = random.Random(args.seed)
    with open(args.out, "w") as f:
        for i in range(args.n):
            fewest = 2 if args.kind == "drills" else 3
            line = {"id": f"induction-{i}", "text": text(rng, args.kind, args.length, rng.randint(fewest, args.facts))}
            f.write(json.dumps(line) + "\n")


def copied_spans(t):
    """Character spans the model can copy from earlier in the text: the second half, the codes after "Again:", or a
    drill's answer."""
    if " A: " in t:
        return [(t.rindex(" A: ") + 4, len(t))]
    if " Again: " not in t:
        return [((len(t) + 1) // 2, len(t))]
    start = t.index(" Again: ")
    return [(start + m.start(1), start + m.end(1)) for m in re.finditer(r":([A-Z0-9]{4})", t[start:])]


def pad(rows):
    """Right-padded inputs and targets (row b predicts rows[b][t + 1] at t; -100 where there is none)."""
    import torch

    width = max(len(r) for r in rows) - 1
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    targets = torch.full((len(rows), width), -100, dtype=torch.long)
    for b, r in enumerate(rows):
        ids[b, : len(r) - 1] = torch.tensor(r[:-1])
        targets[b, : len(r) - 1] = torch.tensor(r[1:])
    return ids, targets


def train(args):
    import torch

    torch.set_num_threads(args.threads)
    from torch_model import CausalLm

    torch.manual_seed(args.seed)
    with open(args.config) as f:
        hf = json.load(f)
    model = CausalLm(hf)
    layers = hf["num_hidden_layers"]
    for name, p in model.named_parameters():
        if p.dim() == 1:
            torch.nn.init.ones_(p) if "norm" in name else torch.nn.init.zeros_(p)
        else:
            std = 0.02 / math.sqrt(2 * layers) if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
            torch.nn.init.normal_(p, 0.0, std)
    texts = [json.loads(line)["text"] for line in open(args.texts)]
    held = max(1, len(texts) // 100)
    train_rows = [list(t.encode()) for t in texts[:-held]]
    eval_ids, eval_targets = pad([list(t.encode()) for t in texts[-held:]])
    copied = torch.zeros_like(eval_targets, dtype=torch.bool)
    for row, t in enumerate(texts[-held:]):
        for start, end in copied_spans(t):
            copied[row, start - 1 : end - 1] = True
    decay = [p for p in model.parameters() if p.dim() >= 2]
    keep = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.wd}, {"params": keep, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, args.beta2),
        eps=1e-8,
    )

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        progress = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * progress))

    def evaluate(step):
        model.eval()
        with torch.no_grad():
            logits = model(eval_ids)
            nll = torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), eval_targets.reshape(-1), reduction="none", ignore_index=-100
            ).view(eval_targets.shape)
        model.train()
        real = eval_targets != -100
        line = {"step": step, "eval_loss": round(nll[real].mean().item(), 4)}
        line["copied_loss"] = round(nll[copied].mean().item(), 4)
        right = (logits.argmax(-1) == eval_targets) | ~copied
        line["copied_exact"] = round(right.all(-1).float().mean().item(), 4)
        print(json.dumps(line), flush=True)

    order = []
    rng = random.Random(args.seed)
    for step in range(args.steps):
        if len(order) < args.batch:
            fresh = list(range(len(train_rows)))
            rng.shuffle(fresh)
            order += fresh
        ids, targets = pad([train_rows[i] for i in order[: args.batch]])
        del order[: args.batch]
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        logits = model(ids)
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100
        )
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        if (step + 1) % args.eval_every == 0:
            evaluate(step + 1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("--n", type=int, default=60000)
    w.add_argument("--kind", choices=["repeat", "pairs", "drills"], default="repeat")
    w.add_argument("--length", type=int, default=32)
    w.add_argument("--facts", type=int, default=7)
    w.add_argument("--seed", type=int, default=1)
    w.add_argument("--out", required=True)
    t = sub.add_parser("train")
    t.add_argument("--texts", required=True)
    t.add_argument("--config", required=True)
    t.add_argument("--steps", type=int, default=1500)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--warmup", type=int, default=50)
    t.add_argument("--min-lr", type=float, default=1e-4)
    t.add_argument("--wd", type=float, default=0.01)
    t.add_argument("--beta2", type=float, default=0.95)
    t.add_argument("--clip", type=float, default=1.0)
    t.add_argument("--eval-every", type=int, default=100)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    write(args) if args.cmd == "write" else train(args)


if __name__ == "__main__":
    sys.exit(main())
