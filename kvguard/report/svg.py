"""``kvguard plan --plot FILE.svg``: a hand-written SVG scatter of the accepted layouts (no plotting
dependency)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from . import Reporter

if TYPE_CHECKING:
    from ..kv.plan import PlanReport

__all__ = ["SvgReporter"]


class SvgReporter(Reporter):
    format = "svg"

    def plan(self, report: "PlanReport", top: Optional[int] = 10) -> str:
        return _plan_svg(report, top)


def _plan_svg(report: "PlanReport", top: Optional[int]) -> str:
    """A hand-written SVG scatter: replica size (log2 GPUs, x) against KV tokens per GPU per GiB (y);
    the top ``top`` layouts in red and numbered as in the text output.  No plotting dependency."""
    from html import escape

    w, h, left, right, tpad, bottom = 720, 420, 70, 20, 40, 50
    rows = report.entries
    k = len(rows) if top is None else min(top, len(rows))
    xs = [math.log2(e.replica_gpus) for e in rows] or [0.0]
    ys = [e.kv_tokens_per_gpu_per_gib for e in rows] or [1.0]
    x_max, y_max = max(max(xs), 1.0), max(ys) * 1.08

    def px(x: float) -> float:
        return left + (w - left - right) * x / x_max

    def py(y: float) -> float:
        return h - bottom - (h - tpad - bottom) * y / y_max

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="13">{escape(report.model)}: '
           f'{report.gpus} GPUs, vLLM {escape(report.vllm_version)}, {report.accepted} accepted layouts</text>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{tpad}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
           f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">GPUs per replica '
           '(tp*pp*pcp, log scale)</text>',
           f'<text x="16" y="{(tpad + h - bottom) / 2}" text-anchor="middle" '
           f'transform="rotate(-90 16 {(tpad + h - bottom) / 2})">KV tokens per GPU per GiB</text>']
    for i in range(int(x_max) + 1):
        out.append(f'<text x="{px(i):.1f}" y="{h - bottom + 15}" text-anchor="middle">{2 ** i}</text>')
    for j in range(5):
        y = y_max * j / 4
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:,.0f}</text>')
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{w - right}" y2="{py(y):.1f}" stroke="#eee"/>')
    for idx in range(len(rows) - 1, -1, -1):   # the best drawn last, on top
        e, x, y = rows[idx], px(xs[idx]), py(ys[idx])
        best = idx < k
        title = escape(e.command)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{4 if best else 3}" fill="{"#d62728" if best else "#1f77b4"}" '
                   f'fill-opacity="{0.9 if best else 0.35}"><title>{title}</title></circle>')
        if best:
            out.append(f'<text x="{x + 6:.1f}" y="{y - 4:.1f}" fill="#d62728">{idx + 1}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
