"""The kernel's property tests (search, both MRV layouts, census, and level count), the bitboard
engine's, the compiled crossword search's, the crossword transfer count's (rows and layers),
the polyform placements' (core/polyform/_placements.c), the bitmaps of --where
(core/_idset.c) and the interrupt tests again, with
the C code built under AddressSanitizer, so a memory error fails CI instead of a user's run."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _libasan() -> str:
    out = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True)
    path = out.stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        pytest.fail("gcc has no libasan.so: install the compiler's AddressSanitizer runtime")
    return path


@pytest.mark.slow
def test_kernel_property_tests_pass_under_address_sanitizer(tmp_path):
    libasan = _libasan()
    pkg = tmp_path / "core"
    shutil.copytree(ROOT / "core", pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    # the kernel, the level count, the bitboard; the crossword search and transfer count
    for module in ("_kernel", "_frontier", "_bitboard", "crossword/_crossword", "crossword/_transfer",
                   "crossword/_peel", "polyform/_placements", "_idset"):
        subprocess.run(
            [
                "gcc", "-shared", "-fPIC", "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                "-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all",
                f"-I{include}", str(pkg / f"{module}.c"), "-o", str(pkg / f"{module}{suffix}"),
            ],
            check=True,
        )
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(ROOT / "tests" / "core" / "test_kernel_properties.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_kernel_memory.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_frontier_properties.py", tests)
    shutil.copy(ROOT / "tests" / "known_tilings.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_bitboard.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_kernel_interrupts.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_crossword_transfer_c.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_crossword_compiled.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_crossword_peel_c.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_census.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_placing.py", tests)
    shutil.copy(ROOT / "tests" / "core" / "test_idset.py", tests)
    helpers = tmp_path / "helpers"  # imported by the tests above, their own tests not run
    helpers.mkdir()
    shutil.copy(ROOT / "tests" / "core" / "test_symmetry.py", helpers)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=f"{tmp_path}{os.pathsep}{helpers}",
        LD_PRELOAD=libasan + " " + subprocess.run(
            ["gcc", "-print-file-name=libubsan.so"], capture_output=True, text=True
        ).stdout.strip(),
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-m", "not slow", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tests)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "passed" in result.stdout
