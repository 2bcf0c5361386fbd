"""loom.autograd: reverse-mode differentiation over graphs recorded by the
generated op functions (nodes from derivatives.yaml)."""
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .node import Node
from . import engine as _engine
from .api import backward, grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .function import Function, FunctionCtx
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from . import functional, forward_ad, graph, profiler

__all__ = ["Function", "FunctionCtx", "backward", "grad", "gradcheck", "gradgradcheck", "GradcheckError", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "Node", "detect_anomaly", "set_detect_anomaly"]
