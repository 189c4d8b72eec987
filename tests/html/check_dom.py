"""Checks one page's DOM as Chromium rendered it (tests/html/run.sh): the filter script ran
(it marks the report `data-script="ran"`), the browser logged no console error, every finding
with a node has a drawing, and each drawing holds that node (named as the JSON output names it)
and at least one labelled edge per input. Standard library only. Exit 1 with the reasons."""

import json
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.script_ran = False
        self.findings = 0
        self.drawings = []  # per <svg>: {"nodes": [...], "labels": [...]}
        self._label = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "obl" in classes and a.get("data-script") == "ran":
            self.script_ran = True
        if tag == "details" and "finding" in classes:
            self.findings += 1
        if tag == "svg" and "subgraph" in classes:
            self.drawings.append({"finding": [], "labels": []})
        if tag == "g" and "finding" in classes and self.drawings:
            self.drawings[-1]["finding"].append(a.get("data-name"))
        if tag == "text" and "label" in classes and self.drawings:
            self._label = ""

    def handle_data(self, data):
        if self._label is not None:
            self._label += data

    def handle_endtag(self, tag):
        if tag == "text" and self._label is not None:
            self.drawings[-1]["labels"].append(self._label)
            self._label = None


def main(dom_path: str, json_path: str, log_path: str) -> int:
    with open(dom_path, encoding="utf-8") as f:
        page = Page()
        page.feed(f.read())
    with open(json_path, encoding="utf-8") as f:
        document = json.load(f)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        log = f.read()
    problems = []
    if not page.script_ran:
        problems.append("the page's script did not run (no data-script=\"ran\")")
    errors = [line for line in log.splitlines() if re.search(r"CONSOLE.*(Uncaught|Error)|Uncaught ", line)]
    if errors:
        problems.append("console errors: " + "; ".join(errors[:3]))
    findings = [d for f in document["files"] for d in f["diagnostics"]]
    if page.findings != len(findings):
        problems.append(f"{page.findings} finding sections for {len(findings)} findings")
    with_node = [d for d in findings if d["node"] is not None]
    if len(page.drawings) != len(with_node):
        problems.append(f"{len(page.drawings)} drawings for {len(with_node)} findings with a node")
    for drawing, finding in zip(page.drawings, with_node):
        name = finding["node"]["name"]
        if drawing["finding"] != [name]:
            problems.append(f"drawing of {name!r} shows {drawing['finding']!r}")
        labelled = [label for label in drawing["labels"] if label.strip()]
        # An I1 finding names an operator, not inputs: its drawing is the node alone.
        inputs = {i["name"] for i in finding["inputs"]}
        if inputs and not any(label.split(" ")[0].split("[")[0] in inputs for label in labelled):
            problems.append(f"drawing of {name!r}: no edge labelled with an input ({labelled!r})")
    if not findings:
        problems.append("no finding: the page tests nothing")
    where = dom_path.rsplit("/", 1)[-1]
    if problems:
        for problem in problems:
            print(f"html: {where}: {problem}")
        return 1
    print(f"html: {where}: script ran, {len(page.drawings)} drawings checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
