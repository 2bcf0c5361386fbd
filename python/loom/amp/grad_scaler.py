"""GradScaler, as torch.amp.GradScaler: scales the loss so float16 gradients do not underflow,
unscales them before the optimizer step, skips the steps whose gradients overflowed and adapts
the scale (halved on an overflow, doubled after growth_interval clean steps)."""
from .. import _ops
from .._dtype import BY_NAME

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device, self._enabled = str(device), bool(enabled)
        self._scale, self._growth_factor, self._backoff_factor = float(init_scale), growth_factor, backoff_factor
        self._growth_interval, self._growth_tracker = int(growth_interval), 0
        self._per_optimizer = {}   # id(optimizer) -> [stage, found_inf]

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """outputs (a tensor, or lists/tuples of them) times the scale, in float32 at least, as torch."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * _ops.full([], self._scale, dtype=BY_NAME["float32"], device=outputs.device)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), [_READY, False])

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale (in place) and note whether any is inf or NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state[0] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state[0] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.dtype is BY_NAME["float16"]:   # (float32 master weights are the way, as in torch)
                    raise ValueError("Attempting to unscale FP16 gradients.")
                g.mul_(inv)
                found = found or not bool(_ops.isfinite(g).all())
        state[:] = [_UNSCALED, found]

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(...) unless the (unscaled) gradients hold an inf or NaN; its return value, or None."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state[0] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state[0] == _READY:
            self.unscale_(optimizer)
        result = None if state[1] else optimizer.step(*args, **kwargs)
        state[0] = _STEPPED
        return result

    def update(self, new_scale=None):
        """The scale for the next iteration: new_scale if given, else backed off after an overflow and
        grown after growth_interval steps without one."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        elif any(found for _, found in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._per_optimizer.clear()

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor, self._backoff_factor = state_dict["growth_factor"], state_dict["backoff_factor"]
        self._growth_interval, self._growth_tracker = state_dict["growth_interval"], state_dict["_growth_tracker"]
