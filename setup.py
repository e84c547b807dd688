"""The compiled part of the package: the playout kernel's CPU build (the rest is in
pyproject.toml). ``pip install .`` and ``pip install -e .`` compile it with the machine's C
compiler; where that fails the package still works, on the Python network backend."""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Builds the kernel, and lets the install go on without it when no compiler works
    (``auto`` then says why it chose the Python network)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any failure of the compiler
            print(f"warning: the native playout kernel was not built ({error})")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            print(f"warning: the native playout kernel was not built ({error})")


_FLAGS = ["-O3", "-std=c99", "-Wall", "-Wno-unused-function"]

setup(
    ext_modules=[
        Extension("reasoner.propnet._native", sources=["reasoner/propnet/_native.c"],
                  depends=["reasoner/propnet/kernel.h"], extra_compile_args=_FLAGS),
        # The GPU build's logic (one word a thread), run thread by thread for the tests.
        Extension("reasoner.propnet._threads", sources=["reasoner/propnet/_threads.c"],
                  depends=["reasoner/propnet/kernel.h"], extra_compile_args=_FLAGS),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
