"""Runs one test file of python/tests with pytest (or unittest where pytest is absent), the package
imported from python/ (the source tree), libhiprim.so from HIPRIM_LIBRARY. Exit status: the
runner's. When nothing ran because every test skipped (numpy or torch absent), prints
'HIPRIM_PYTHON_SKIPPED: <reasons>' (ctest reports that test as skipped).
Usage: python run_tests.py test_ops.py"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(here), here]
MARK = "HIPRIM_PYTHON_SKIPPED"


def main(path):
    try:
        import numpy  # noqa: F401
    except ImportError:
        print(f"{MARK}: numpy is not installed for {sys.executable} (pip install numpy)")
        return 0
    try:
        import pytest
    except ImportError:
        return run_unittest(path)

    class Outcomes:
        ran, skipped = 0, []

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and not report.skipped:
                self.ran += 1
            if report.skipped:
                self.skipped.append(str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "skipped")

    outcomes = Outcomes()
    code = pytest.main([os.path.join(here, path), "-v", "-rs", "-p", "no:cacheprovider"], plugins=[outcomes])
    if code == 0 and outcomes.ran == 0 and outcomes.skipped:
        print(f"{MARK}: " + "; ".join(sorted(set(outcomes.skipped))))
    return int(code)


def run_unittest(path):
    import unittest
    print("pytest is not installed: running unittest")
    suite = unittest.defaultTestLoader.loadTestsFromName(os.path.splitext(os.path.basename(path))[0])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if result.wasSuccessful() and result.testsRun == len(result.skipped) and result.skipped:
        print(f"{MARK}: " + "; ".join(sorted({reason for _, reason in result.skipped})))
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
