"""Report figures are readable: each series drawn distinctly (coinciding curves stay visible),
paired series share a colour, a series may have its own abscissae (each data set's ε grid), and
the legend sits outside the axes."""

import matplotlib

matplotlib.use("Agg")

from proofs_checks.catalogue import Figure
from proofs_checks.report import _styles, draw_figure


def test_pairs_share_a_colour_and_differ_in_line_style():
    labels = [f"{kind}, e^(ε/2) = {u}" for kind in ("BRR/GRR", "paper Asym.", "true limit") for u in ("3/2", "2", "4")]
    st = _styles(labels)
    for u in ("3/2", "2", "4"):
        group = [st[f"{k}, e^(ε/2) = {u}"] for k in ("BRR/GRR", "paper Asym.", "true limit")]
        assert len({g["color"] for g in group}) == 1 and len({g["linestyle"] for g in group}) == 3
    assert len({st[f"BRR/GRR, e^(ε/2) = {u}"]["color"] for u in ("3/2", "2", "4")}) == 3


def test_unpaired_series_are_all_drawn_differently():
    labels = [f"n={n},k={k}" for n, k in [(3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (2, 4), (4, 4)]]
    st = _styles(labels)
    looks = {(s["color"], s["linestyle"], s["marker"]) for s in st.values()}
    assert len(looks) == len(labels)
    assert st["n=3,k=1"]["linestyle"] != st["n=2,k=4"]["linestyle"]  # the two flat lines of pf Fig. 2


def test_series_over_their_own_x_and_legend_outside(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    seen = {}
    close = plt.close

    def keep(fig):  # look at the drawn figure before it is closed
        ax = fig.axes[0]
        seen["x"] = {line.get_label(): tuple(line.get_xdata()) for line in ax.get_lines() if not line.get_label().startswith("_")}
        seen["xlabel"] = ax.get_xlabel()
        legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
        axes = ax.get_window_extent(fig.canvas.get_renderer())
        seen["outside"] = legend.x0 >= axes.x1
        close(fig)

    monkeypatch.setattr(plt, "close", keep)
    fig = Figure("t", (0.1, 0.2), {"A": (1.0, 2.0), "B": (1.0, 1.5, 2.0)}, "ε", "r", logx=True,
                 xs={"B": (0.01, 0.02, 0.04)})
    draw_figure(fig, tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000
    assert seen["x"] == {"A": (0.1, 0.2), "B": (0.01, 0.02, 0.04)} and seen["xlabel"] == "ε" and seen["outside"]
