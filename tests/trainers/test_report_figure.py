"""The run report's picture names every curve and phase (BC loss, BC, GRPO, end of BC)."""

from __future__ import annotations

from agentgym.trainers.tracking import plot_report, report_figure

ROWS = ([{"kind": "eval", "step": 0, "success_greedy": 0.0, "success_sampled": 0.0,
          "episodes_greedy": 20}]
        + [{"kind": "train", "step": s, "bc_loss": 2.0 / s} for s in (1, 2, 3, 4)]
        + [{"kind": "eval", "step": 4, "success_greedy": 1.0, "success_sampled": 0.8}]
        + [{"kind": "train", "step": s, "reward": 0.9, "success": 0.9} for s in (5, 6, 7)]
        + [{"kind": "eval", "step": 7, "success_greedy": 1.0, "success_sampled": 0.95}])


def test_report_legend_names_bc_loss_and_the_grpo_phase(tmp_path):
    fig = report_figure(ROWS)
    train_ax, held_out_ax = fig.axes[0], fig.axes[1]
    labels = [t.get_text() for t in train_ax.get_legend().get_texts()]
    assert {"reward", "behaviour cloning", "GRPO", "BC loss"} <= set(labels)
    assert "end of BC" in [t.get_text() for t in held_out_ax.get_legend().get_texts()]
    assert "20 tasks never trained on" in held_out_ax.get_title()
    import json

    path = tmp_path / "metrics.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS))
    assert plot_report(path, tmp_path / "report.png").stat().st_size > 10_000


def test_before_and_after_labels_of_the_two_curves_never_overlap():
    """Greedy and sampled start at the same point and end close together near the top: their
    labels (and the legend) must not sit on each other (report.png had them overlapping)."""
    fig = report_figure(ROWS)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    held_out_ax = fig.axes[1]
    labels = [t for t in held_out_ax.texts if t.get_text().startswith(("before", "after"))]
    assert sorted(t.get_text() for t in labels) == ["after 100%", "after 95%", "before 0%",
                                                    "before 0%"]
    boxes = [t.get_window_extent(renderer) for t in labels]
    boxes.append(held_out_ax.get_legend().get_window_extent(renderer))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
