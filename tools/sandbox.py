"""A throwaway copy of the checkout and a venv to build it in, for the rebuild
benchmark and the end-to-end new-op test.

The venv has no packages of its own: a .pth file puts this environment's
site-packages after its own, so meson-python, cffi, numpy and pytest come from
here while the loom installed into it shadows any loom installed here (the
.pth files of this environment, e.g. an editable loom's import hook, are not
run there).
"""
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# what a copy leaves out: build trees, VCS data, caches, local venvs
SKIP = ("build", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".venv", "venv", "dist", "*.egg-info",
        ".hypothesis")


def copy_tree(dst, src=ROOT):
    """Copy the source tree (without builds and caches) to dst; returns dst."""
    dst = Path(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*SKIP), symlinks=True)
    return dst


def make_venv(path):
    """A venv at path that sees this environment's packages; returns its python."""
    path = Path(path)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    ours = [p for p in dict.fromkeys(site.getsitepackages() + [site.getusersitepackages(),
                                                              sysconfig.get_paths()["purelib"]]) if Path(p).is_dir()]
    (Path(purelib) / "_loom_parent_env.pth").write_text("\n".join(ours) + "\n")
    return python


def pip_install(python, source, editable=False, extra=(), env=None):
    """pip install source into the venv of python, building with this environment's tools."""
    cmd = [str(python), "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--ignore-installed",
           "--disable-pip-version-check", "-q", *extra] + (["-e"] if editable else []) + [str(source)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def bin_env(python):
    """An environment whose PATH finds the venv's scripts first (meson, ninja come from here)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(python).parent), str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    return env
