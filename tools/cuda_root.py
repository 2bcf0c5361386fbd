"""Print the CUDA toolkit root of an nvcc (meson.build links libcudart_static.a
from ROOT/lib64). nvcc may be a link or a wrapper script, so ask nvcc itself:
its dry run names its TOP directory."""
import os
import re
import subprocess
import sys

nvcc = sys.argv[1]
out = subprocess.run([nvcc, "-dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"],
                     capture_output=True, text=True).stderr
m = re.search(r"^#\$ TOP=(.*)$", out, re.M)
top = os.path.realpath(m.group(1).strip()) if m else os.path.dirname(os.path.realpath(nvcc))
print(os.path.dirname(top) if os.path.basename(top) == "bin" else top)
