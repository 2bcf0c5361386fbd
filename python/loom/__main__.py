"""python -m loom: show how this loom was built and run a small computation."""
import numpy as np

import loom
from loom._C import lib


def main():
    print(f"loom {loom.__version__}: {len(loom._ops.__all__)} operators from ops/, "
          f"{lib.lm_get_num_threads()} threads")
    if loom.cuda.is_available():
        print(f"CUDA: {loom.cuda.get_device_name()} ({loom.cuda.device_count()} device(s))")
    else:
        try:
            loom.cuda._lazy_init()
        except RuntimeError as e:
            print(f"CUDA: not available ({e})")
    a = loom.arange(6, dtype=loom.float32).reshape(2, 3)
    b = loom.from_numpy(np.ones((3,), dtype=np.float32))
    print("a =", a)
    print("a @ a.T =", a @ a.T)
    print("(a + b).sum(dim=1) =", (a + b).sum(dim=1))


if __name__ == "__main__":
    main()
