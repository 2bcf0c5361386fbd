"""A short run of the main job, `python -m loom.examples.digits`: trains, saves,
reloads, re-checks, and plots."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn", reason="the digits example needs loom[examples] (scikit-learn)")
pytest.importorskip("matplotlib", reason="the digits example needs loom[examples] (matplotlib)")
pytest.importorskip("tqdm", reason="the digits example needs loom[examples] (tqdm)")

from loom.examples import digits  # noqa: E402


def test_short_run_trains_saves_reloads_and_plots(tmp_path):
    results = digits.main(["--model", "both", "--epochs", "3", "--out", str(tmp_path), "--no-progress"])
    assert results["mlp"] > 0.7 and results["cnn"] > 0.5   # well above chance (0.1) after 3 epochs
    for name in ("digits_mlp.loom", "digits_cnn.loom", "digits_training.png"):
        assert (tmp_path / name).stat().st_size > 0
    with open(tmp_path / "digits_training.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_module_entry_point_with_progress_bar(tmp_path):
    r = subprocess.run([sys.executable, "-m", "loom.examples.digits", "--model", "mlp", "--epochs", "1",
                        "--batch-size", "128", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr
    assert "mlp: test accuracy" in r.stdout and "reloaded accuracy" in r.stdout
    assert "samples_per_s" in r.stderr and "loss=" in r.stderr   # tqdm's bar with the postfix


def test_bad_option_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as e:
        digits.main(["--model", "resnet"])
    assert e.value.code == 2


def test_default_run_reaches_the_accuracy_targets(tmp_path):
    """The README's main job with its defaults and fixed seed: MLP >= 97 %, CNN >= 98 % held out."""
    results = digits.main(["--out", str(tmp_path), "--no-progress"])
    assert results["mlp"] >= 0.97, results
    assert results["cnn"] >= 0.98, results
