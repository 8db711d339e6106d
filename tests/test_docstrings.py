"""Every worked example in a docstring of `archive/` runs (issue #40, 5): one test per module
whose docstrings hold `>>>` examples, found by importing every module of the package and asking
`doctest.DocTestFinder` (so a module that gains examples is run without being listed here).

tests/test_suite.py checks the other way round: every module whose source shows `>>>` is one
this finds, and no example is skipped.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import archive

# The migrations are history (literal SQL), never documentation; importing them runs nothing.
NOT_DOCUMENTATION = ("archive.migrations",)


def package_modules(package: ModuleType = archive) -> list[str]:
    """The dotted names of every module of `package`, the package itself included."""
    names = [package.__name__]
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
        if not info.name.startswith(NOT_DOCUMENTATION):
            names.append(info.name)
    return sorted(names)


def examples_of(name: str) -> list[doctest.DocTest]:
    """The docstring tests of module `name` that hold at least one example."""
    module = importlib.import_module(name)
    return sorted((test for test in doctest.DocTestFinder().find(module) if test.examples),
                  key=lambda test: test.name)


def modules_with_examples() -> list[str]:
    """Each module once: an alias (archive.ibi is archive.identifiers.ibi) is its module's."""
    return [name for name in package_modules()
            if importlib.import_module(name).__name__ == name and examples_of(name)]


MODULES = modules_with_examples()


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    runner = doctest.DocTestRunner()
    report: list[str] = []
    for test in examples_of(name):
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.attempted, f"{name}: every example is skipped"
    assert not results.failed, "".join(report)
