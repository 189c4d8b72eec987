"""Time onnx_bcast_lint.lint() against onnx.shape_inference.infer_shapes(strict_mode=True,
data_prop=True) on the same models, in the same process (issue 15's closing note).

    python python/bench/measure.py [MODEL.onnx ...]

Without arguments: the 10k- and 100k-node transformers of bench/gen_models.py (written to a
temporary directory) and a scikit-learn pipeline exported with skl2onnx. Each timing is the
median of RUNS (default 3) runs. lint() is timed on the path (memory-mapped) and on the
ModelProto (serialized once, as a converter would call it); infer_shapes on the ModelProto.
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import onnx
import onnx.shape_inference

import onnx_bcast_lint

RUNS = int(os.environ.get("RUNS", "3"))
REPO = Path(__file__).resolve().parents[2]


def median_ms(fn):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def default_models(tmp):
    sys.path.insert(0, str(REPO / "bench"))
    import gen_models  # noqa: E402

    paths = []
    for name, nodes in (("tx_10k", 10_000), ("tx_100k", 100_000)):
        model = gen_models.transformer(gen_models.blocks_for(nodes), d_model=64, d_ff=256,
                                       heads=4, vocab=1000, shared=True)
        path = Path(tmp) / f"{name}.onnx"
        onnx.save(model, str(path))
        paths.append(path)
    import numpy as np
    import skl2onnx
    from sklearn.datasets import load_iris
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = load_iris(return_X_y=True)
    x = x.astype(np.float32)
    pipe = make_pipeline(StandardScaler(), PCA(n_components=3),
                         LogisticRegression(max_iter=500)).fit(x, y)
    path = Path(tmp) / "sklearn_pipeline.onnx"
    onnx.save(skl2onnx.to_onnx(pipe, x[:1], target_opset={"": 18, "ai.onnx.ml": 3}), str(path))
    paths.append(path)
    return paths


def main(argv):
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(a) for a in argv] or default_models(tmp)
        print(f"| model | nodes | lint(path) ms | lint(ModelProto) ms | infer_shapes ms | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for path in paths:
            proto = onnx.load(str(path), load_external_data=False)
            report = onnx_bcast_lint.lint(path)
            by_path = median_ms(lambda: onnx_bcast_lint.lint(path))
            by_proto = median_ms(lambda: onnx_bcast_lint.lint(proto))
            try:
                infer = median_ms(lambda: onnx.shape_inference.infer_shapes(
                    proto, strict_mode=True, data_prop=True))
                infer_text = f"{infer:.1f}"
                ratio = f"{infer / by_proto:.1f}x"
            except Exception as error:  # noqa: BLE001 - strict mode rejects some models
                infer_text, ratio = f"raises {type(error).__name__}", "-"
            print(f"| {path.name} | {report.stats['nodes']} | {by_path:.1f} | {by_proto:.1f} | "
                  f"{infer_text} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1:])
