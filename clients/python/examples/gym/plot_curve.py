"""The learning curve reinforce.py writes, as an SVG, in plain Python (no
plotting library): per iteration the mean over the agent's seeds of the
batch's mean return, a band of ± one standard deviation across those
seeds, each seed's own curve faintly, and as reference lines the returns
of greedy FIFO in the environment and of slotsim's built-in fifo on the
same workloads. From the repository's root:

    python3 clients/python/examples/gym/plot_curve.py learning-curve.csv --out curve.svg

It reads the summary reinforce.py writes beside the CSV (CSV.json) for the
reference line and the caption, when there is one.
"""

import argparse
import csv
import json
import math
import os
from collections import defaultdict

W, H = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 78, 24, 48, 100


def nice_ticks(lo, hi, n=6):
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 2.5, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    first = math.ceil(lo / step) * step
    out = []
    t = first
    while t <= hi + 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def esc(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("curve", help="the CSV reinforce.py wrote (--curve)")
    parser.add_argument("--out", required=True, help="the SVG to write")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()

    runs = defaultdict(dict)  # agent seed -> iteration -> mean return
    with open(args.curve, newline="") as f:
        for row in csv.DictReader(f):
            runs[int(row["seed"])][int(row["iteration"])] = float(row["mean_return"])
    meta = {}
    if os.path.isfile(args.curve + ".json"):
        with open(args.curve + ".json") as f:
            meta = json.load(f)
    seeds = sorted(runs)
    iterations = sorted(set.intersection(*(set(r) for r in runs.values())))
    mean, sd = [], []
    for it in iterations:
        xs = [runs[s][it] for s in seeds]
        m = sum(xs) / len(xs)
        mean.append(m)
        sd.append(math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0)

    ref = meta.get("greedy_fifo_train_return")
    builtin = meta.get("builtin_fifo_train_return")
    refs = [v for v in (ref, builtin) if v is not None]
    values = [v for r in runs.values() for v in r.values()] + [m + s for m, s in zip(mean, sd)] + \
        [m - s for m, s in zip(mean, sd)] + refs
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or 1.0
    lo, hi = lo - pad, hi + pad
    x0, x1 = iterations[0], iterations[-1]
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def X(it):
        return LEFT + (it - x0) / ((x1 - x0) or 1) * pw

    def Y(v):
        return TOP + (hi - v) / (hi - lo) * ph

    out = []
    add = out.append
    add('<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">'.format(W, H, W, H))
    add('<rect width="100%" height="100%" fill="white"/>')
    title = args.title or "REINFORCE on {} (a demonstration)".format(
        meta.get("scenario_name", "the scenario"))
    add('<text x="{}" y="22" font-size="15" font-weight="bold">{}</text>'.format(LEFT, esc(title)))
    sub = "mean ± sd over {} agent seeds ({}); each point: the mean return of one iteration's {} episodes".format(
        len(seeds), ", ".join(map(str, seeds)), meta.get("episodes_per_iteration", "?"))
    add('<text x="{}" y="38" fill="#555">{}</text>'.format(LEFT, esc(sub)))
    # Grid and axes.
    for t in nice_ticks(lo, hi):
        y = Y(t)
        add('<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#e5e5e5"/>'.format(LEFT, W - RIGHT, y, y))
        add('<text x="{}" y="{:.1f}" text-anchor="end" fill="#333">{:g}</text>'.format(LEFT - 6, y + 4, t))
    for t in nice_ticks(x0, x1, 8):
        x = X(t)
        add('<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}" stroke="#999"/>'.format(x, x, TOP + ph, TOP + ph + 4))
        add('<text x="{:.1f}" y="{}" text-anchor="middle" fill="#333">{:g}</text>'.format(x, TOP + ph + 17, t))
    add('<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>'.format(LEFT, TOP, pw, ph))
    add('<text x="{:.1f}" y="{}" text-anchor="middle">iteration</text>'.format(LEFT + pw / 2, H - BOTTOM + 36))
    add('<text transform="translate(18,{:.1f}) rotate(-90)" text-anchor="middle">'
        'mean episode return (−Σ turnaround, s)</text>'.format(TOP + ph / 2))
    # Band, seeds, mean.
    band = ["{:.1f},{:.1f}".format(X(it), Y(m + s)) for it, m, s in zip(iterations, mean, sd)]
    band += ["{:.1f},{:.1f}".format(X(it), Y(m - s))
             for it, m, s in reversed(list(zip(iterations, mean, sd)))]
    add('<polygon points="{}" fill="#2b6cb0" fill-opacity="0.18" stroke="none"/>'.format(" ".join(band)))
    for s in seeds:
        pts = " ".join("{:.1f},{:.1f}".format(X(it), Y(runs[s][it])) for it in iterations)
        add('<polyline points="{}" fill="none" stroke="#2b6cb0" stroke-opacity="0.3" stroke-width="0.8"/>'.format(pts))
    pts = " ".join("{:.1f},{:.1f}".format(X(it), Y(m)) for it, m in zip(iterations, mean))
    add('<polyline points="{}" fill="none" stroke="#1a4f8b" stroke-width="2"/>'.format(pts))
    legend_y = H - BOTTOM + 60
    add('<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#1a4f8b" stroke-width="2"/>'.format(
        LEFT, LEFT + 24, legend_y - 4, legend_y - 4))
    add('<text x="{}" y="{}">sampled policy: mean (band ± sd)</text>'.format(LEFT + 30, legend_y))
    legend = [(ref, "#c05621", "6,4", "greedy FIFO in the environment"),
              (builtin, "#2f855a", "2,3", "slotsim's built-in fifo")]
    lx = LEFT + 300
    for value, colour, dash, label in legend:
        if value is None:
            continue
        y = Y(value)
        add('<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.5" '
            'stroke-dasharray="{}"/>'.format(LEFT, W - RIGHT, y, y, colour, dash))
        add('<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="1.5" '
            'stroke-dasharray="{}"/>'.format(lx, lx + 24, legend_y - 4, legend_y - 4, colour, dash))
        text = "{} ({:.0f})".format(label, value)
        add('<text x="{}" y="{}">{}</text>'.format(lx + 30, legend_y, esc(text)))
        legend_y += 18
    add("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("{}: {} seeds, {} iterations; last iteration {:.1f} ± {:.1f}".format(
        args.out, len(seeds), len(iterations), mean[-1], sd[-1]))


if __name__ == "__main__":
    main()
