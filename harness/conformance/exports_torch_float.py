"""Torch models whose TorchScript export computes shapes in float (issue 18): a ViT with DINO-style
`interpolate_pos_encoding`, a wav2vec2-style conv feature encoder with fairseq's output lengths,
and an SSD/RetinaNet-style detector resizing to a fixed size. Written here from the published
architectures' shape logic, small and randomly initialised (seed 0); no weights are downloaded.
"""
import math


def specs(torch, nn):
    """(name, class, example inputs, input names, output names, dynamic axes, truth hints) per model:
    the hints bind the symbolic dims to sizes the models accept (the defaults are too small for
    their convolutions), one not a multiple of the strides."""
    F = nn.functional

    class ViT(nn.Module):
        """ViT with DINO-style interpolate_pos_encoding: scale_factor from (h // p + 0.1) / sqrt(N)."""

        def __init__(self, patch=8, dim=32, grid=4):
            super().__init__()
            self.p = patch
            self.embed = nn.Conv2d(3, dim, patch, patch)
            self.cls = nn.Parameter(torch.randn(1, 1, dim))
            self.pos = nn.Parameter(torch.randn(1, grid * grid + 1, dim))
            # A token-wise head: TorchScript's export of nn.TransformerEncoder bakes the sequence
            # length in (see torch/encoder), which would hide the tokens dim.
            self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU())

        def interpolate_pos_encoding(self, x, h, w):
            n_pos = self.pos.shape[1] - 1
            cls_pos, patch_pos = self.pos[:, :1], self.pos[:, 1:]
            dim = x.shape[-1]
            h0, w0 = h // self.p + 0.1, w // self.p + 0.1
            side = int(math.sqrt(n_pos))
            patch_pos = patch_pos.reshape(1, side, side, dim).permute(0, 3, 1, 2)
            patch_pos = F.interpolate(patch_pos, scale_factor=(h0 / math.sqrt(n_pos), w0 / math.sqrt(n_pos)),
                                      mode="bicubic", align_corners=False, recompute_scale_factor=True)
            patch_pos = patch_pos.permute(0, 2, 3, 1).reshape(1, -1, dim)
            return torch.cat((cls_pos, patch_pos), dim=1)

        def forward(self, x):
            b, _, h, w = x.shape
            t = self.embed(x).flatten(2).transpose(1, 2)
            t = torch.cat((self.cls.expand(b, -1, -1), t), dim=1)
            t = t + self.interpolate_pos_encoding(t, h, w)
            return self.head(t)

    class FeatureEncoder(nn.Module):
        """wav2vec2-style conv feature encoder; output lengths as fairseq computes them, in float."""

        layers = [(10, 5), (3, 2), (3, 2), (2, 2)]

        def __init__(self, dim=16):
            super().__init__()
            convs, c = [], 1
            for k, s in self.layers:
                convs += [nn.Conv1d(c, dim, k, s, bias=False), nn.GELU()]
                c = dim
            self.convs = nn.Sequential(*convs)
            self.proj = nn.Linear(dim, 24)

        def forward(self, wav, lengths):
            feats = self.convs(wav.unsqueeze(1)).transpose(1, 2)
            out_len = lengths.float()
            for k, s in self.layers:
                out_len = torch.floor((out_len - k) / s + 1)
            out_len = out_len.to(torch.int64)
            steps = torch.arange(feats.shape[1]).unsqueeze(0)
            mask = (steps < out_len.unsqueeze(1)).unsqueeze(-1)
            return self.proj(feats) * mask, out_len

    class Detector(nn.Module):
        """SSD/RetinaNet-style: a fixed-size resize whose scale is computed in float, conv heads,
        and anchors sized from the feature map; boxes as (batch, anchors, 4)."""

        def __init__(self, target=64, classes=3, anchors=2):
            super().__init__()
            self.target = float(target)
            self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
            self.cls = nn.Conv2d(16, anchors * classes, 3, 1, 1)
            self.box = nn.Conv2d(16, anchors * 4, 3, 1, 1)
            self.classes, self.anchors = classes, anchors

        def forward(self, img):
            h = img.shape[-2]
            scale = self.target / h
            img = F.interpolate(img, scale_factor=scale, mode="bilinear", recompute_scale_factor=True,
                                align_corners=False)
            f = self.backbone(img)
            b = f.shape[0]
            logits = self.cls(f).permute(0, 2, 3, 1).reshape(b, -1, self.classes)
            deltas = self.box(f).permute(0, 2, 3, 1).reshape(b, -1, 4)
            fh, fw = f.shape[-2], f.shape[-1]
            ys = (torch.arange(fh).float() + 0.5) * (img.shape[-2] / fh)
            xs = (torch.arange(fw).float() + 0.5) * (img.shape[-1] / fw)
            cy, cx = torch.meshgrid(ys, xs, indexing="ij")
            centers = torch.stack((cx, cy, cx, cy), -1).reshape(-1, 1, 4).expand(-1, self.anchors, 4)
            boxes = centers.reshape(1, -1, 4) + deltas
            return boxes, logits.softmax(-1)

    return [
        ("vit_interpolate", ViT, lambda: (torch.randn(2, 3, 40, 48),), ["pixels"], ["y"],
         {"pixels": {0: "batch", 2: "height", 3: "width"}, "y": {0: "batch", 1: "tokens"}},
         {"bindings": [{"batch": 2, "height": 40, "width": 56}, {"batch": 1, "height": 67, "width": 45}]}),
        ("wav2vec2_features", FeatureEncoder,
         lambda: (torch.randn(2, 4000), torch.tensor([4000, 3100], dtype=torch.int64)),
         ["wav", "lengths"], ["y", "out_lengths"],
         {"wav": {0: "batch", 1: "samples"}, "lengths": {0: "batch"}, "y": {0: "batch", 1: "frames"}},
         {"bindings": [{"batch": 2, "samples": 4000}, {"batch": 3, "samples": 5333}], "values": {"lengths": 3001}}),
        ("detector", Detector, lambda: (torch.randn(1, 3, 80, 96),), ["image"], ["boxes", "scores"],
         {"image": {0: "batch", 2: "height", 3: "width"}, "boxes": {0: "batch", 1: "anchors"},
          "scores": {0: "batch", 1: "anchors"}},
         {"bindings": [{"batch": 1, "height": 80, "width": 96}, {"batch": 2, "height": 133, "width": 70}]}),
    ]
