"""Timing statistics of one case's measured runs."""
from __future__ import annotations

import statistics


def summarize(samples: list[float]) -> dict[str, float]:
    """Median and spread (min, max, interquartile range) of the measured run times, seconds."""
    xs = sorted(samples)
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = xs[0]
    return {"median": statistics.median(xs), "min": xs[0], "max": xs[-1], "q1": q1, "q3": q3,
            "mean": statistics.fmean(xs), "stdev": statistics.stdev(xs) if len(xs) >= 2 else 0.0,
            "runs": len(xs)}


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 0.01:
        return f"{s * 1000:.2f} ms"
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 100:
        return f"{s:.2f} s"
    return f"{s:.0f} s"


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"
