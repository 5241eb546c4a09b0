"""setup.py - `pip install 06_tuning/python` builds the course's library (make python, in the course's
folder) and puts it into the package, so the installed package works from any folder and any venv
of this machine. Without network (pip cannot fetch setuptools for an isolated build):
`pip install --no-build-isolation 06_tuning/python`."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

COURSE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIBRARY = os.path.join(COURSE, "build", "06_tuning", "libcourse_cholesky.so")


class BuildWithLibrary(build_py):
    """The package's Python files, and the library beside them."""

    def run(self):
        subprocess.check_call(["make", "-C", COURSE, f"-j{os.cpu_count() or 2}", "python"])
        super().run()
        target = os.path.join(self.build_lib, "course_cholesky")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(LIBRARY, target)


setup(cmdclass={"build_py": BuildWithLibrary})
