"""Small randomly initialised torch / transformers models, exported with dynamic axes.

Built from configs with fixed seeds: no weights are downloaded from any hub.
"""
from __future__ import annotations

import io
import os
import warnings


def _export(torch, model, args, in_names, out_names, dynamic_axes, opset=17):
    buf = io.BytesIO()
    kw = dict(input_names=in_names, output_names=out_names, dynamic_axes=dynamic_axes, opset_version=opset)
    try:
        torch.onnx.export(model, args, buf, dynamo=False, **kw)
    except TypeError:  # very old torch without the dynamo flag
        torch.onnx.export(model, args, buf, **kw)
    import onnx

    return onnx.load_from_string(buf.getvalue())


def export_all(col):
    import torch
    from torch import nn

    torch.set_num_threads(1)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    warnings.filterwarnings("ignore")

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))

        def forward(self, x):
            return self.net(x).softmax(-1)

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.f = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
            self.head = nn.Linear(16, 5)

        def forward(self, x):
            return self.head(self.f(x).flatten(1))

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 12)
            self.lstm = nn.LSTM(12, 16, batch_first=True)
            self.gru = nn.GRU(16, 8, batch_first=True)

        def forward(self, ids):
            h, _ = self.lstm(self.emb(ids))
            o, _ = self.gru(h)
            return o.mean(1)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(64, 32)
            self.pos = nn.Parameter(torch.randn(1, 128, 32))
            self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2)

        def forward(self, ids, mask):
            s = ids.shape[1]
            x = self.emb(ids) + self.pos[:, :s]
            return self.enc(x, src_key_padding_mask=mask == 0)

    class Attn(nn.Module):
        """Hand-written attention with reshapes, a causal mask and broadcasting adds."""

        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(24, 72)
            self.o = nn.Linear(24, 24)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(x).split(24, -1)
            q, k, v = (t.reshape(b, s, 3, 8).transpose(1, 2) for t in (q, k, v))
            att = q @ k.transpose(-1, -2) / 8 ** 0.5
            causal = torch.triu(torch.full((s, s), float("-inf")), 1)
            att = (att + causal).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, s, 24)
            return self.o(y) + x

    specs = [
        ("mlp", MLP, lambda: (torch.randn(3, 16),), ["x"], {"x": {0: "batch"}}),
        ("cnn", CNN, lambda: (torch.randn(2, 3, 20, 24),), ["x"], {"x": {0: "batch", 2: "height", 3: "width"}}),
        ("rnn", RNN, lambda: (torch.randint(0, 50, (2, 7)),), ["ids"], {"ids": {0: "batch", 1: "seq"}}),
        ("encoder", Encoder, lambda: (torch.randint(0, 64, (2, 9)), torch.ones(2, 9, dtype=torch.int64)),
         ["ids", "mask"], {"ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}}),
        ("attention", Attn, lambda: (torch.randn(2, 5, 24),), ["x"], {"x": {0: "batch", 1: "seq"}}),
    ]
    for name, cls, mk, ins, dyn in specs:
        try:
            torch.manual_seed(0)
            m = cls().eval()
            args = mk()
            onx = _export(torch, m, args, ins, ["y"], dict(dyn, y={0: "batch"}))
            col.add("torch", name, onx, f"torch {torch.__version__}, seed 0, torch.onnx.export(dynamo=False)")
        except Exception as e:
            col.skipped.append({"id": f"torch/{name}", "reason": f"export: {type(e).__name__}: {str(e)[:300]}"})

    from conformance import exports_torch_float

    for name, cls, mk, ins, outs, dyn, hints in exports_torch_float.specs(torch, nn):
        try:
            torch.manual_seed(0)
            onx = _export(torch, cls().eval(), mk(), ins, outs, dyn)
            col.add("torch", name, onx, f"torch {torch.__version__}, seed 0, torch.onnx.export(dynamo=False)",
                    hints=hints)
        except Exception as e:
            col.skipped.append({"id": f"torch/{name}", "reason": f"export: {type(e).__name__}: {str(e)[:300]}"})

    try:
        import transformers
    except Exception as e:
        col.skipped.append({"id": "transformers/*", "reason": f"transformers not importable: {e}"})
        return
    tspecs = [
        ("bert", "BertConfig", "BertModel", dict(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                                                 num_attention_heads=4, intermediate_size=64,
                                                 max_position_embeddings=64)),
        ("gpt2", "GPT2Config", "GPT2Model", dict(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64)),
        ("distilbert", "DistilBertConfig", "DistilBertModel", dict(vocab_size=100, dim=32, n_layers=2, n_heads=4,
                                                                   hidden_dim=64, max_position_embeddings=64)),
    ]
    for name, cfg_name, model_name, cfg_kw in tspecs:
        try:
            torch.manual_seed(0)
            cfg = getattr(transformers, cfg_name)(**cfg_kw)
            cfg.use_cache = False
            m = getattr(transformers, model_name)(cfg).eval()
            ids = torch.randint(0, 100, (2, 8))
            mask = torch.ones(2, 8, dtype=torch.int64)

            class Wrap(nn.Module):
                def __init__(self, inner):
                    super().__init__()
                    self.inner = inner

                def forward(self, input_ids, attention_mask):
                    return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

            dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                   "last_hidden_state": {0: "batch", 1: "sequence"}}
            onx = _export(torch, Wrap(m), (ids, mask), ["input_ids", "attention_mask"], ["last_hidden_state"], dyn)
            col.add("transformers", name, onx,
                    f"transformers {transformers.__version__} {model_name} from config, seed 0 (no weights downloaded)")
        except Exception as e:
            col.skipped.append({"id": f"transformers/{name}", "reason": f"export: {type(e).__name__}: {str(e)[:300]}"})
