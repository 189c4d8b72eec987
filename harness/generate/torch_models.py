"""Families `torch-cnn` and `genai-builder`: models made with torch, committed because CI installs
no torch (3 GB of wheels).

  * `torch-cnn`: CNN exports (torch.onnx.export, TorchScript, opset 17, dynamic batch, height and
    width), seed 0, randomly initialised: the harness's own CNN (exports_torch.py's `cnn`), a
    torchvision MobileNetV3-Small at width 0.25 and an EfficientNet at width and depth 0.25 (10
    classes). collect.py runs onnxruntime's offline optimizer over them (family `ort-offline`).
  * `genai-builder`: onnxruntime-genai's model builder (`onnxruntime_genai.models.builder`) on
    tiny random-weight checkpoints saved locally from transformers configs (no download), for
    the CPU at fp32 and int4, re-saved with their weights inside the .onnx file.

Needs a venv with torch, torchvision, transformers and onnxruntime-genai (no GPU):

    python3 -m venv /tmp/venv-gen && /tmp/venv-gen/bin/pip install torch torchvision transformers \
        onnxruntime-genai onnx onnxruntime onnxscript
    cd harness && /tmp/venv-gen/bin/python -m generate.torch_models [--only torch-cnn|genai-builder]
"""
from __future__ import annotations

import argparse
import glob
import io
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

from .common import Writer

CNN_BINDINGS = {"bindings": [{"batch": 1, "height": 64, "width": 64}, {"batch": 2, "height": 96, "width": 80}]}


def _export(torch, model, x):
    import onnx

    buf = io.BytesIO()
    dyn = {"x": {0: "batch", 2: "height", 3: "width"}, "y": {0: "batch"}}
    torch.onnx.export(model, (x,), buf, input_names=["x"], output_names=["y"], dynamic_axes=dyn,
                      opset_version=17, dynamo=False)
    return onnx.load_from_string(buf.getvalue())


def torch_cnn(w):
    import torch
    import torchvision
    from torch import nn
    from torchvision.models import efficientnet, mobilenetv3

    torch.set_num_threads(1)

    class CNN(nn.Module):
        """exports_torch.py's `cnn`, unchanged."""

        def __init__(self):
            super().__init__()
            self.f = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
            self.head = nn.Linear(16, 5)

        def forward(self, x):
            return self.head(self.f(x).flatten(1))

    def mobilenet():
        setting, last = mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
        return mobilenetv3.MobileNetV3(setting, last, num_classes=10)

    def effnet():
        setting, last = efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
        return efficientnet.EfficientNet(setting, 0.2, last_channel=last, num_classes=10)

    version = f"torch {torch.__version__}, torchvision {torchvision.__version__}"
    for name, make in (("cnn", CNN), ("mobilenet_v3_small_w025", mobilenet), ("efficientnet_w025", effnet)):
        try:
            torch.manual_seed(0)
            m = make().eval()
            for mod in m.modules():  # random running statistics, so BatchNorm is not the identity
                if isinstance(mod, nn.BatchNorm2d):
                    mod.running_mean.uniform_(-0.1, 0.1)
                    mod.running_var.uniform_(0.5, 1.5)
            onx = _export(torch, m, torch.randn(2, 3, 64, 64))
            w.add("torch-cnn", name, onx, f"{version}, seed 0, random weights, torch.onnx.export(dynamo=False)",
                  CNN_BINDINGS)
        except Exception as e:
            w.skip("torch-cnn", name, f"{type(e).__name__}: {str(e)[:300]}")


# Tiny configs of architectures the builder supports; each saved with random weights (seed 0).
GENAI_CONFIGS = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", dict(num_key_value_heads=2)),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", dict(num_key_value_heads=2, head_dim=16)),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", dict(num_key_value_heads=4, pad_token_id=0)),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", dict(num_key_value_heads=1, head_dim=16)),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(num_key_value_heads=2, sliding_window=None)),
}
COMMON = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
              max_position_embeddings=128, tie_word_embeddings=False)
# GroupQueryAttention takes a prompt with a past only for one sequence (exports_ort.py's gqa);
# kv_cache_dim is the head size, 16 in every config above.
GENAI_HINTS = {"bindings": [
    {"batch_size": 2, "sequence_length": 1, "past_sequence_length": 7, "total_sequence_length": 8,
     "kv_cache_dim": 16},
    {"batch_size": 1, "sequence_length": 5, "past_sequence_length": 3, "total_sequence_length": 8,
     "kv_cache_dim": 16}]}


def _save_tokenizer(path, vocab_size):
    """A word-level tokenizer of `vocab_size` made-up words: the builder loads the checkpoint's
    tokenizer (and writes its files beside the model), and a random checkpoint has none."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {f"w{i}": i for i in range(vocab_size)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="w0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="w0", bos_token="w1", eos_token="w2",
                            pad_token="w0").save_pretrained(path)


def genai_builder(w, precisions=("fp32", "int4")):
    import onnx
    import onnxruntime_genai
    import torch
    import transformers

    warnings.filterwarnings("ignore")
    for arch, (cfg_name, cls_name, extra) in GENAI_CONFIGS.items():
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "hf")
            try:
                torch.manual_seed(0)
                cfg = getattr(transformers, cfg_name)(**dict(COMMON, **extra))
                getattr(transformers, cls_name)(cfg).save_pretrained(src)
                _save_tokenizer(src, COMMON["vocab_size"])
            except Exception as e:
                for p in precisions:
                    w.skip("genai-builder", f"{arch}_{p}", f"config: {type(e).__name__}: {str(e)[:300]}")
                continue
            for p in precisions:
                name = f"{arch}_{p}"
                out = os.path.join(d, name)
                cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", src, "-o", out, "-p", p,
                       "-e", "cpu", "-c", os.path.join(d, "cache")]
                r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
                onnx_files = glob.glob(os.path.join(out, "*.onnx"))
                if r.returncode != 0 or not onnx_files:
                    w.skip("genai-builder", name, f"builder exit {r.returncode}: {(r.stderr or r.stdout)[-400:]}")
                    continue
                model = onnx.load(onnx_files[0])  # external data is read back in
                w.add("genai-builder", name, model,
                      f"onnxruntime-genai {onnxruntime_genai.__version__} builder (-p {p} -e cpu) on a random "
                      f"{cls_name} (transformers {transformers.__version__}, seed 0, {COMMON['num_hidden_layers']} "
                      f"layers, hidden {COMMON['hidden_size']})", GENAI_HINTS)
            shutil.rmtree(src, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", choices=["torch-cnn", "genai-builder"])
    args = ap.parse_args()
    fams = [args.only] if args.only else ["torch-cnn", "genai-builder"]
    w = Writer(fams)
    if "torch-cnn" in fams:
        torch_cnn(w)
    if "genai-builder" in fams:
        try:
            genai_builder(w)
        except ImportError as e:
            w.skip("genai-builder", "*", f"not installed: {e}")
    w.save()


if __name__ == "__main__":
    main()
