#!/usr/bin/env bash
# Issue 35, item 3: the HTML report in a real browser. Builds the page of fixtures with E1, W1
# and E4 findings and of three harness models (fixtures stand in when harness/models is not set
# up), opens each in Debian's headless Chromium, and checks from the rendered DOM (check_dom.py)
# that the page's script ran without a console error, that every finding has its drawing, and
# that each drawing holds the finding's node (by the name the JSON gives) and labelled edges.
# Pages, DOMs, browser logs and screenshots are left in $HTML_ARTIFACTS (target/html-report).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
BIN="${ONNX_BCAST_LINT:-target/release/onnx-bcast-lint}"
OUT="${HTML_ARTIFACTS:-target/html-report}"
BROWSER="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$BROWSER" && "$(id -u)" == 0 ]] && command -v apt-get > /dev/null; then
  # Debian's package, not a browser download (CI runs as root in a Debian image).
  apt-get install -y -q chromium > /dev/null && BROWSER="$(command -v chromium)"
fi
[[ -n "$BROWSER" ]] || { echo "html: no chromium (apt-get install -y chromium)"; exit 1; }
[[ -x "$BIN" ]] || { echo "html: $BIN not built"; exit 1; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# Root in a CI container cannot use Chromium's sandbox.
FLAGS=(--headless --disable-gpu --hide-scrollbars --no-first-run --enable-logging=stderr --v=0)
[[ "$(id -u)" == 0 ]] && FLAGS+=(--no-sandbox)

models=(tests/models/e1_reshape_upstream.onnx tests/models/w1_conv_frames.onnx tests/models/e4_matmul_k.onnx)
HARNESS="${HARNESS_MODELS:-harness/models}"
harness=("$HARNESS/rapidocr/ch_PP-OCRv4_det_infer.onnx" "$HARNESS/rapidocr/ch_PP-OCRv4_rec_infer.onnx"
         "$HARNESS/onnx-simple")
if [[ -f "${harness[0]}" && -f "${harness[1]}" && -d "${harness[2]}" ]]; then
  # Two OCR models with W1 chains through dozens of Convs, and a batch of ONNX's own models.
  # ONNX's models lint clean now that every op version has a rule: two fixtures with findings
  # join the batch, so that its page still draws findings among many clean files.
  batch="$OUT/onnx-simple"
  rm -rf "$batch" && mkdir -p "$batch"
  cp "${harness[2]}"/*.onnx tests/models/w1_chain_once.onnx tests/models/e1_transposed_table.onnx "$batch/"
  models+=("${harness[0]}" "${harness[1]}" "$batch")
else
  echo "html: harness/models not set up; fixtures stand in for the harness models"
  models+=(tests/models/w1_chain_once.onnx tests/models/e1_transposed_table.onnx tests/models/w4_matmul_symbolic_k.onnx)
fi

failed=0
for model in "${models[@]}"; do
  name="$(basename "$model" .onnx)"
  rc=0; "$BIN" --format html "$model" > "$OUT/$name.html" || rc=$?
  [[ $rc -le 1 ]] || { echo "html: $model: exit $rc"; failed=1; continue; }
  rc=0; "$BIN" --format json "$model" > "$OUT/$name.json" || rc=$?
  # One launch: the DOM after the page's script ran, and the screenshot.
  timeout 120 "$BROWSER" "${FLAGS[@]}" --window-size=1280,960 --screenshot="$OUT/$name.png" \
    --dump-dom "file://$OUT/$name.html" > "$OUT/$name.dom" 2> "$OUT/$name.log" \
    || { echo "html: $model: chromium failed"; failed=1; continue; }
  [[ -s "$OUT/$name.png" ]] || { echo "html: $model: no screenshot"; failed=1; }
  python3 tests/html/check_dom.py "$OUT/$name.dom" "$OUT/$name.json" "$OUT/$name.log" || failed=1
done
# The checker itself: a page whose script throws must fail it.
sed 's|<script>.*|<script>null.x();</script>|' "$OUT/e4_matmul_k.html" > "$OUT/broken.html"
timeout 120 "$BROWSER" "${FLAGS[@]}" --dump-dom "file://$OUT/broken.html" > "$OUT/broken.dom" 2> "$OUT/broken.log" || true
if python3 tests/html/check_dom.py "$OUT/broken.dom" "$OUT/e4_matmul_k.json" "$OUT/broken.log" > /dev/null; then
  echo "html: the checker passed a page whose script throws"; failed=1
fi
echo "html: pages, DOMs and screenshots in $OUT; $(( $(date +%s) - start ))s"
exit $failed
