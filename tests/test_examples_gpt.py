"""A short run of the second main job, `python -m loom.examples.gpt`: trains a few steps on the standard
library's source, samples with multinomial, saves, reloads, re-checks and plots."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="the gpt example needs loom[examples] (matplotlib)")
pytest.importorskip("tqdm", reason="the gpt example needs loom[examples] (tqdm)")

import loom  # noqa: E402
from loom.examples import gpt  # noqa: E402

SMALL = ["--n-layer", "1", "--n-embd", "32", "--n-head", "2", "--block-size", "16", "--batch-size", "8",
         "--sample-chars", "40", "--no-progress"]


def test_short_run_learns_samples_saves_reloads_and_plots(tmp_path):
    r = gpt.main(["--steps", "40", "--eval-every", "20", "--lr", "1e-2", "--out", str(tmp_path)] + SMALL)
    h = r["history"]
    assert len(h["train_loss"]) == 40 and h["val_step"] == [20, 40]
    vocab = len(set(gpt.load_text()))
    assert r["val_loss"] < 0.85 * np.log(vocab)            # better than uniform guessing over the characters
    assert r["sample"].startswith("def ") and len(r["sample"]) == 44
    for name in ("gpt.loom", "gpt_config.json", "gpt_loss.png"):
        assert (tmp_path / name).stat().st_size > 0
    with open(tmp_path / "gpt_loss.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_generate_is_reproducible_with_a_generator():
    loom.manual_seed(0)
    m = gpt.GPT(10, 8, n_layer=1, n_head=2, n_embd=16)
    start = loom.zeros((2, 3), dtype=loom.int64)
    a = m.generate(start, 12, generator=loom.Generator().manual_seed(5))
    b = m.generate(start, 12, top_k=3, generator=loom.Generator().manual_seed(5))
    c = m.generate(start, 12, top_k=3, generator=loom.Generator().manual_seed(5))
    assert a.shape == (2, 15) and int(a.max()) < 10
    assert (b == c).all().item()


def test_module_entry_point_with_progress_bar(tmp_path):
    r = subprocess.run([sys.executable, "-m", "loom.examples.gpt", "--steps", "3", "--eval-every", "3",
                        "--out", str(tmp_path)] + SMALL[:-1], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr
    assert "held-out loss" in r.stdout and "reloaded held-out loss" in r.stdout and "sample" in r.stdout
    assert "tokens_per_s" in r.stderr and "loss=" in r.stderr   # tqdm's bar with the postfix


def test_bad_options_are_usage_errors():
    with pytest.raises(SystemExit) as e:
        gpt.main(["--n-embd", "30", "--n-head", "4"])
    assert e.value.code == 2
