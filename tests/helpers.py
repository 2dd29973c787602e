"""Test helpers that make real input files."""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, pages: list[str]) -> Path:
    """A real multi-page PDF with extractable text (matplotlib's PDF backend, TrueType fonts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    matplotlib.rcParams["pdf.fonttype"] = 42
    with PdfPages(path) as pdf:
        for text in pages:
            fig = plt.figure(figsize=(8.5, 11))
            for i, line in enumerate(text.split("\n")):
                fig.text(0.05, 0.95 - 0.03 * i, line, fontsize=9)
            pdf.savefig(fig)
            plt.close(fig)
    return path
