"""setup.py - `pip install 06_tuning/python` builds the course's library (make python, in the course's
folder) and puts it into the package, so the installed package works from any folder and any venv
of this machine. Without network (pip cannot fetch setuptools for an isolated build):
`pip install --no-build-isolation 06_tuning/python`."""
import os
import shutil
import subprocess

import importlib.util
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

COURSE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIBRARY = os.path.join(COURSE, "build", "06_tuning", "libcourse_cholesky.so")
TABLES = os.path.join(COURSE, "06_tuning", "tables")


class BuildWithLibrary(build_py):
    """The package's Python files, and the library beside them."""

    def run(self):
        subprocess.check_call(["make", "-C", COURSE, f"-j{os.cpu_count() or 2}", "python"])
        super().run()
        target = os.path.join(self.build_lib, "course_cholesky")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(LIBRARY, target)
        # The tuned tables too: the installed package must not need the course's folder it was built in.
        tables = os.path.join(target, "tables")
        os.makedirs(tables, exist_ok=True)
        for name in os.listdir(TABLES):
            if name.endswith(".tsv"):
                shutil.copy2(os.path.join(TABLES, name), tables)


class WithNativeLibrary(Distribution):
    """The package holds a compiled library (x86-64 or whatever this machine is): its wheel is tagged
    for this platform and Python, not py3-none-any."""

    def has_ext_modules(self):
        return True


# pip's --no-build-isolation uses this environment's setuptools; before setuptools 70.1 the wheel
# command (which every pip install builds through) came from the `wheel` package, and pip's own
# error ("invalid command 'bdist_wheel'") does not say so.
if importlib.util.find_spec("wheel") is None:
    import setuptools
    if tuple(int(x) for x in setuptools.__version__.split(".")[:2]) < (70, 1):
        sys.exit(f"course-cholesky: building a wheel with setuptools {setuptools.__version__} needs the `wheel` "
                 "package: pip install wheel (or pip install without --no-build-isolation, with network)")

setup(cmdclass={"build_py": BuildWithLibrary}, distclass=WithNativeLibrary)
