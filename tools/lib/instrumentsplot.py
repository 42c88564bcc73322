"""Draw tools/measure/instruments' histograms (tools/lib/instruments.py:
plot_spec()).

    /usr/bin/python3 tools/lib/instrumentsplot.py < SPEC.json

SPEC: {"path", "caption", "panels": [{"title", "xlabel", "series":
[{"name", "histogram": {bucket us: count}}]}]}; "format" ("svg" by
default). One panel a row, one mark per non-empty bucket and configuration, both axes
logarithmic (a bucket of 1 sample stays visible beside millions). Needs
matplotlib (Debian: python3-matplotlib); the same spec draws the same
bytes.
"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as pyplot  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "instruments"
matplotlib.rcParams["svg.fonttype"] = "none"


MARKERS = "os^vDx+*"


def panel(axis, spec):
    for number, series in enumerate(spec["series"]):
        buckets = sorted((int(bucket), count) for bucket, count in series["histogram"].items() if count)
        if buckets:     # one mark per non-empty bucket: no line across the empty ones
            axis.plot([b for b, _ in buckets], [c for _, c in buckets], linestyle="none",
                      marker=MARKERS[number % len(MARKERS)], markersize=3, fillstyle="none", label=series["name"])
    axis.set_xscale("symlog", linthresh=10)
    axis.set_yscale("log")
    axis.set_title(spec["title"], fontsize=9)
    axis.set_xlabel(spec["xlabel"], fontsize=8)
    axis.set_ylabel("count", fontsize=8)
    axis.legend(fontsize=7)
    axis.grid(True, which="major", linewidth=0.3)


def draw(spec):
    panels = spec["panels"]
    figure, axes = pyplot.subplots(len(panels), 1, figsize=(8, 3.4 * len(panels)), squeeze=False)
    for axis, one in zip(axes[:, 0], panels):
        panel(axis, one)
    figure.text(0.01, 0.005, spec["caption"], fontsize=6)
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    svg = spec.get("format", "svg") == "svg"
    figure.savefig(spec["path"], format=spec.get("format", "svg"), metadata={"Date": None} if svg else None)
    pyplot.close(figure)


if __name__ == "__main__":
    draw(json.load(sys.stdin))
