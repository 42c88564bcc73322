"""Draw one scenario's SVG for tools/lib/noiselab.py: plot_scenario().

    /usr/bin/python3 tools/lib/noiseplot.py < SPEC.json

SPEC: {"path", "title", "caption", "count_key", "count_title", "bars": [{"name", "count",
"noise_pct"}]}, count and noise_pct each {"median", "min", "max"} or null;
"format" ("svg" by default, "png" to look at it).
Two panels side by side: the count's median with min-max error bars, and
the median noise %, one bar per configuration. Needs matplotlib (Debian:
python3-matplotlib); the same spec draws the same bytes.
"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as pyplot  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "noiselab"
matplotlib.rcParams["svg.fonttype"] = "none"      # text stays text: searchable, and small


def label(value):
    return str(int(value)) if float(value).is_integer() else "%g" % value


def panel(axis, bars, key, title, unit):
    stats = [bar[key] for bar in bars]
    medians = [s["median"] if s else 0 for s in stats]
    below = [s["median"] - s["min"] if s else 0 for s in stats]
    above = [s["max"] - s["median"] if s else 0 for s in stats]
    drawn = axis.bar(range(len(bars)), medians, yerr=[below, above], capsize=4, color="#4c72b0")
    axis.bar_label(drawn, labels=[label(m) if s else "-" for m, s in zip(medians, stats)], fontsize=8)
    axis.set_xticks(range(len(bars)), [bar["name"] for bar in bars], rotation=30, ha="right", fontsize=8)
    axis.set_title(title, fontsize=9)
    axis.set_ylabel(unit, fontsize=8)


def draw(spec):
    bars = spec["bars"]
    figure, (counts, noise) = pyplot.subplots(1, 2, figsize=(max(6.0, 1.3 * len(bars) + 3), 4.2))
    panel(counts, bars, "count", spec.get("count_title", "interrupts in the window"),
          "%s: median, min-max" % spec["count_key"])
    panel(noise, bars, "noise_pct", "noise (host-dependent)", "% of the CPU: median, min-max")
    figure.suptitle(spec["title"], fontsize=10)
    figure.text(0.01, 0.01, spec["caption"], fontsize=6)
    figure.tight_layout(rect=(0, 0.05, 1, 0.95))
    svg = spec.get("format", "svg") == "svg"
    figure.savefig(spec["path"], format=spec.get("format", "svg"), metadata={"Date": None} if svg else None)
    pyplot.close(figure)


if __name__ == "__main__":
    draw(json.load(sys.stdin))
