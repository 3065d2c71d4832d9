"""Builds the Python module with CMake: the libraries it links (core, the
SIMD backend, engine, report; CUDA only when asked) and the module, nothing
else (no CLI, tests, benchmarks or MPI). The version is the CMake project's.

    python3 -m pip install --no-build-isolation .
    python3 -m pip wheel --no-build-isolation --no-deps -w dist .   # a wheel to install elsewhere

Environment: MELANGE_CMAKE_ARGS adds arguments to the CMake configure step
(-DMELANGE_WITH_CUDA=ON for the CUDA backend);
CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default: every core).
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# setuptools' own scratch files stay out of the source tree's root.
SCRATCH = ROOT / "build" / "python-package"


def cmake_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    found = re.search(r"project\(melange\s+VERSION\s+([0-9.]+)", text)
    if not found:
        raise RuntimeError("no 'project(melange VERSION x.y.z' in CMakeLists.txt")
    return found.group(1)


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build = Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DMELANGE_PYTHON_ONLY=ON",
            # CUDA only when asked (MELANGE_CMAKE_ARGS=-DMELANGE_WITH_CUDA=ON): its
            # kernels take most of a build, and a wheel goes to machines without a GPU.
            "-DMELANGE_WITH_CUDA=OFF",
            *shlex.split(os.environ.get("MELANGE_CMAKE_ARGS", "")),
        ]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(["cmake", "--build", str(build), "--target", "melange_python", "-j", jobs], check=True)
        built = build / "python" / Path(self.get_ext_filename(ext.name)).name
        if not built.exists():
            raise RuntimeError(f"CMake built no {built.name}: is pybind11 (pybind11-dev) installed?")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


SCRATCH.mkdir(parents=True, exist_ok=True)
setup(
    version=cmake_version(),
    ext_modules=[CMakeExtension("melange")],
    # The module's type stubs, as a PEP 561 stub-only package beside it.
    packages=["melange-stubs"],
    package_dir={"melange-stubs": "python/melange-stubs"},
    package_data={"melange-stubs": ["__init__.pyi"]},
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SCRATCH)}, "egg_info": {"egg_base": str(SCRATCH)}},
    zip_safe=False,
)
