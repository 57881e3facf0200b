"""Colour arithmetic for the report's tests, written from the standards rather than taken from
the code under test: WCAG 2 relative luminance and contrast ratio, and the CIEDE2000 colour
difference (CIE Lab from sRGB under D65)."""

from __future__ import annotations

import math
import re


def rgb(color: str) -> tuple[int, int, int]:
    """`#rrggbb`, `#rgb` or `rgb(r, g, b)` as three 0..255 integers."""
    color = color.strip().lower()
    if color.startswith("rgb"):
        r, g, b = (int(float(x)) for x in re.findall(r"[\d.]+", color)[:3])
        return r, g, b
    color = color.lstrip("#")
    if len(color) == 3:
        color = "".join(c * 2 for c in color)
    return int(color[0:2], 16), int(color[2:4], 16), int(color[4:6], 16)


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(color) -> float:
    r, g, b = (_linear(c) for c in (rgb(color) if isinstance(color, str) else color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over_white(color: str, alpha: float) -> tuple[float, float, float]:
    """`color` painted with opacity `alpha` on white."""
    return tuple(alpha * c + (1 - alpha) * 255 for c in rgb(color))


def lab(color: str) -> tuple[float, float, float]:
    r, g, b = (_linear(c) for c in rgb(color))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(c1: str, c2: str) -> float:
    """The CIEDE2000 difference of two colours (kL = kC = kH = 1)."""
    L1, a1, b1 = lab(c1)
    L2, a2, b2 = lab(c2)
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    C1, C2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360
    h2 = math.degrees(math.atan2(b2, a2)) % 360
    dL, dC = L2 - L1, C2 - C1
    if C1 * C2 == 0:
        dh = 0.0
    else:
        dh = h2 - h1
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    dH = 2 * math.sqrt(C1 * C2) * math.sin(math.radians(dh / 2))
    Lbar, Cbar = (L1 + L2) / 2, (C1 + C2) / 2
    if C1 * C2 == 0:
        hbar = h1 + h2
    elif abs(h1 - h2) <= 180:
        hbar = (h1 + h2) / 2
    else:
        hbar = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    dtheta = 30 * math.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(Cbar ** 7 / (Cbar ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (Lbar - 50) ** 2 / math.sqrt(20 + (Lbar - 50) ** 2)
    sc = 1 + 0.045 * Cbar
    sh = 1 + 0.015 * Cbar * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh))
