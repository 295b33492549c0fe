"""Build the C search kernel; everything else is declared in pyproject.toml."""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "core._kernel",
            sources=["core/_kernel.c"],
            depends=["core/_interrupt.h", "core/_search_common.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core._bitboard",
            sources=["core/_bitboard.c"],
            depends=["core/_interrupt.h", "core/_search_common.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core.crossword._crossword",
            sources=["core/crossword/_crossword.c"],
            depends=["core/_interrupt.h", "core/_search_common.h", "core/crossword/_reachable.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core._frontier",
            sources=["core/_frontier.c"],
            depends=["core/_frontier_levels.h", "core/_frontier_census.h", "core/_interrupt.h",
                     "core/_search_common.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core.crossword._transfer",
            sources=["core/crossword/_transfer.c"],
            depends=["core/_interrupt.h", "core/_search_common.h", "core/crossword/_state_table.h",
                     "core/crossword/_reachable.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core.crossword._peel",
            sources=["core/crossword/_peel.c"],
            depends=["core/_interrupt.h", "core/_search_common.h", "core/crossword/_state_table.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core._idset",
            sources=["core/_idset.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
        Extension(
            "core.polyform._placements",
            sources=["core/polyform/_placements.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        ),
    ]
)
