"""plot_layouts.py - pictures of the batch layouts for the stage 04 and 05 READMEs.

    python common/course/plot_layouts.py 04_interleaved/layouts.png 05_chunked/chunked_layout.png

Each picture is a strip of memory cells, address 0 at the left; a cell shows which matrix b it
belongs to (colour) and which element (i, j) it holds. The index arithmetic is written out here
from the definitions in common/layout.h (row-major, interleaved, chunked with a partial last
chunk), so the pictures show exactly what the kernels address. Outlined cells: what 4
neighbouring threads (one per matrix) read when each loads element (0, 0) of its own matrix.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def rowmajor(n, batch, b, i, j):
    return b * n * n + i * n + j


def chunked(n, batch, chunk, b, i, j):
    start = (b // chunk) * chunk
    width = min(chunk, batch - start)
    return start * n * n + (i * n + j) * width + (b - start)


def draw_strip(ax, y, title, n, batch, index, per_row):
    colours = plt.get_cmap("tab10")
    cells = {}
    for b in range(batch):
        for i in range(n):
            for j in range(n):
                cells[index(b, i, j)] = (b, i, j)
    total = batch * n * n
    for addr in range(total):
        b, i, j = cells[addr]
        row, col = divmod(addr, per_row)
        yy = y - row * 1.15
        hot = i == 0 and j == 0 and b < 4
        ax.add_patch(Rectangle((col, yy), 0.95, 0.95, facecolor=colours(b % 10), alpha=0.9 if hot else 0.45,
                               edgecolor="black" if hot else "white", linewidth=2.0 if hot else 0.5))
        ax.text(col + 0.47, yy + 0.47, f"{b}\n{i}{j}", ha="center", va="center", fontsize=6)
    ax.text(-0.5, y + 0.47, title, ha="right", va="center", fontsize=9)
    return (total + per_row - 1) // per_row


def picture(path, strips, n, batch, caption):
    per_row = 36
    rows = sum((batch * n * n + per_row - 1) // per_row for _, _ in strips) + len(strips)
    fig, ax = plt.subplots(figsize=(14, 0.55 * rows + 1.2))
    y = 0.0
    for title, index in strips:
        used = draw_strip(ax, y, title, n, batch, index, per_row)
        y -= (used + 0.6) * 1.15
    ax.set_xlim(-9, per_row + 0.5)
    ax.set_ylim(y + 0.6 * 1.15 + 0.3, 1.3)
    ax.axis("off")
    ax.set_title(caption, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)


def main(out4, out5):
    n = 3
    picture(out4, [("row-major", lambda b, i, j: rowmajor(n, 6, b, i, j)),
                   ("interleaved", lambda b, i, j: chunked(n, 6, 6, b, i, j))], n, 6,
            "6 matrices of order 3 in memory (cell: matrix b, element ij). Outlined: a_00 of matrices 0-3, "
            "what 4 neighbouring threads load together")
    batch, chunk = 8, 3
    picture(out5, [("interleaved", lambda b, i, j: chunked(n, batch, batch, b, i, j)),
                   (f"chunked, c={chunk}", lambda b, i, j: chunked(n, batch, chunk, b, i, j))], n, batch,
            f"8 matrices of order 3, chunks of {chunk}: chunk 0 = matrices 0-2, chunk 1 = 3-5, and the last chunk "
            f"holds only 6-7 (width 2, no padding)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_layouts.py OUT_STAGE04.png OUT_STAGE05.png")
    main(sys.argv[1], sys.argv[2])
