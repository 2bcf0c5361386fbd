"""autograd.detect_anomaly / set_detect_anomaly: the forward traceback of the op whose
backward failed, NaN checks with PyTorch's wording, and nothing kept while off."""
import warnings

import pytest
import torch

import loom
from loom.autograd import detect_anomaly, set_detect_anomaly


@pytest.fixture(autouse=True)
def _off():
    yield
    loom.set_anomaly_enabled(False)


def _warned_detect():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        return detect_anomaly()


def test_nan_in_backward_raises_with_forward_traceback():
    x = loom.tensor([0.0, 1.0], requires_grad=True)
    with _warned_detect():
        out = (x / x).sum()   # the line the warning must point at
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match=r"^Function 'DivBackwardTensor' returned nan values in its 1th "
                                                   r"output\.$"):
                out.backward()
    text = [str(w.message) for w in seen if "Error detected in" in str(w.message)]
    assert len(text) == 1
    assert text[0].startswith("Error detected in DivBackwardTensor. Traceback of forward call that caused the error:")
    assert "out = (x / x).sum()   # the line the warning must point at" in text[0]
    assert "_ops.py" not in text[0] and "_nodes.py" not in text[0]   # loom's own frames are cut


def test_same_message_as_pytorch():
    with _warned_detect():
        x = loom.tensor([0.0, 1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as ours:
            loom.autograd.grad((x / x).sum(), x)
    with pytest.warns(UserWarning):
        with torch.autograd.detect_anomaly():
            t = torch.tensor([0.0, 1.0], requires_grad=True)
            with pytest.raises(RuntimeError) as theirs:
                torch.autograd.grad((t / t).sum(), t)
    assert str(ours.value).replace("DivBackwardTensor", "DivBackward0") == str(theirs.value)


def test_check_nan_false_lets_nan_through_but_errors_still_warn():
    x = loom.tensor([0.0, 1.0], requires_grad=True)
    with set_detect_anomaly(True, check_nan=False):
        assert loom.is_anomaly_enabled() and not loom.is_anomaly_check_nan_enabled()
        (x / x).sum().backward()
        assert bool(loom.isnan(x.grad)[0])

        class Bad(loom.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("broken backward")
        y = Bad.apply(x).sum()
        with pytest.warns(UserWarning, match=r"Error detected in BadBackward\. Traceback of forward call[\s\S]*"
                                             r"y = Bad\.apply\(x\)\.sum\(\)"):
            with pytest.raises(ValueError, match="broken backward"):
                y.backward()
    assert not loom.is_anomaly_enabled() and loom.is_anomaly_check_nan_enabled()


def test_off_records_nothing_and_passes_nan():
    x = loom.tensor([0.0, 1.0], requires_grad=True)
    y = x / x
    assert "traceback_" not in y.grad_fn.metadata
    y.sum().backward()   # NaN gradient, no error: anomaly mode is off
    assert bool(loom.isnan(x.grad)[0])
    with set_detect_anomaly(True):
        z = x / x
    assert "z = x / x" in z.grad_fn.metadata["traceback_"]


def test_decorator_and_nesting_restore():
    with pytest.warns(UserWarning):
        @detect_anomaly(check_nan=False)
        def inside():
            return loom.is_anomaly_enabled(), loom.is_anomaly_check_nan_enabled()
    assert inside() == (True, False)
    assert not loom.is_anomaly_enabled()
    set_detect_anomaly(True)
    with pytest.warns(UserWarning), detect_anomaly(check_nan=False):
        assert loom.is_anomaly_enabled() and not loom.is_anomaly_check_nan_enabled()
    assert loom.is_anomaly_enabled() and loom.is_anomaly_check_nan_enabled()


def test_the_switch_takes_only_bools_and_stays_off():
    # a truthy object used to turn anomaly mode on for the rest of the process
    for bad in (object(), 1, None):
        with pytest.raises(TypeError, match="set_anomaly_enabled\\(\\): argument 'enabled' \\(position 1\\) must be bool"):
            loom.autograd.set_detect_anomaly(bad)
        assert not loom.is_anomaly_enabled()
    with pytest.raises(TypeError, match="argument 'check_nan' \\(position 2\\) must be bool"):
        loom.autograd.set_detect_anomaly(True, check_nan="yes")
    assert not loom.is_anomaly_enabled()


def test_sparse_gradients_are_checked_through_their_values():
    emb = loom.nn.Embedding(10, 3, sparse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with loom.autograd.detect_anomaly():
            emb(loom.tensor([1, 2, 1])).sum().backward()
    assert emb.weight.grad.is_sparse
    assert emb.weight.grad.to_dense()[1].tolist() == [2.0, 2.0, 2.0]
