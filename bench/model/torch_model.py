"""The Qwen2/Llama decoder of FATHOM's default model in PyTorch, with Hugging Face parameter names, so that a FATHOM
checkpoint's tensors load into it by name. Full causal T×T attention with q scaled before the scores, RoPE with
rotate_half, RMSNorm, SwiGLU, tied or separate lm_head: what FATHOM's training graph computes
(libs/model/src/graph/model.graph.ts). Shared by torch_ref.py (speed) and grads_vs_torch.py (gradients)."""

import torch
import torch.nn.functional as F


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Attention(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.h, self.kv, self.hd = c["heads"], c["kv_heads"], c["head_dim"]
        d, bias = c["hidden"], c["qkv_bias"]
        self.q_proj = torch.nn.Linear(d, self.h * self.hd, bias=bias)
        self.k_proj = torch.nn.Linear(d, self.kv * self.hd, bias=bias)
        self.v_proj = torch.nn.Linear(d, self.kv * self.hd, bias=bias)
        self.o_proj = torch.nn.Linear(self.h * self.hd, d, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(self.h // self.kv, dim=1)
        v = v.repeat_interleave(self.h // self.kv, dim=1)
        scores = (q * self.hd**-0.5) @ k.transpose(-1, -2) + mask  # q scaled, not the T×T scores, as FATHOM does
        return self.o_proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, self.h * self.hd))


class Mlp(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = torch.nn.Linear(c["hidden"], c["ffn"], bias=False)
        self.up_proj = torch.nn.Linear(c["hidden"], c["ffn"], bias=False)
        self.down_proj = torch.nn.Linear(c["ffn"], c["hidden"], bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Canon(torch.nn.Module):
    """A causal depthwise convolution over the last `kernel` positions, added to its input (Allen-Zhu's Canon layer):
    each position sees its neighbours' features before attention or the MLP does."""

    def __init__(self, d, kernel):
        super().__init__()
        self.kernel = kernel
        self.weight = torch.nn.Parameter(torch.zeros(d, 1, kernel))

    def forward(self, x):
        t = x.shape[1]
        y = F.conv1d(F.pad(x.transpose(1, 2), (self.kernel - 1, 0)), self.weight, groups=x.shape[-1])
        return x + y[:, :, :t].transpose(1, 2)


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden"], c["eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden"], c["eps"])
        self.mlp = Mlp(c)
        k = c.get("canon", 0)
        self.canon_a = Canon(c["hidden"], k) if k else torch.nn.Identity()
        self.canon_c = Canon(c["hidden"], k) if k else torch.nn.Identity()

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.canon_a(self.input_layernorm(x)), cos, sin, mask)
        return x + self.mlp(self.canon_c(self.post_attention_layernorm(x)))


class Decoder(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(c["vocab"], c["hidden"])
        self.layers = torch.nn.ModuleList(Layer(c) for _ in range(c["layers"]))
        self.norm = RMSNorm(c["hidden"], c["eps"])


class CausalLm(torch.nn.Module):
    """Parameters named as in a Hugging Face checkpoint: model.embed_tokens.weight, model.layers.0.self_attn.q_proj.weight, …"""

    def __init__(self, hf_config):
        super().__init__()
        d = hf_config["hidden_size"]
        heads = hf_config["num_attention_heads"]
        self.c = {
            "hidden": d,
            "heads": heads,
            "kv_heads": hf_config["num_key_value_heads"],
            "head_dim": hf_config.get("head_dim", d // heads),
            "ffn": hf_config["intermediate_size"],
            "vocab": hf_config["vocab_size"],
            "eps": hf_config["rms_norm_eps"],
            "theta": hf_config["rope_theta"],
            "layers": hf_config["num_hidden_layers"],
            "qkv_bias": hf_config["model_type"] == "qwen2" or hf_config.get("attention_bias", False),
            "canon": hf_config.get("canon_kernel", 0),
        }
        self.model = Decoder(self.c)
        self.tied = hf_config.get("tie_word_embeddings", False)
        if not self.tied:
            self.lm_head = torch.nn.Linear(d, self.c["vocab"], bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        dtype = self.model.embed_tokens.weight.dtype
        hd = self.c["head_dim"]
        inv = 1.0 / self.c["theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        freqs = torch.outer(torch.arange(t, dtype=torch.float64), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
        mask = torch.full((t, t), -1e9, dtype=dtype).triu(1)
        x = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            x = layer(x, cos, sin, mask)
        head = self.model.embed_tokens.weight if self.tied else self.lm_head.weight
        return self.model.norm(x) @ head.T
