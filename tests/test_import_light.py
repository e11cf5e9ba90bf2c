"""``import aggframe`` loads none of the optional engines and chart libraries (issue 35): they are
imported inside the calls that need them. Run in a fresh interpreter, as a user's first cell."""

from __future__ import annotations

import json
import subprocess
import sys

#: what a call loads when it needs it, never the import of the package
OPTIONAL = ("altair", "great_tables", "sklearn", "duckdb", "pyspark", "vl_convert", "pandas", "scipy")


def test_import_aggframe_loads_no_optional_library() -> None:
    code = (
        "import json, sys; import aggframe; "
        f"print(json.dumps([m for m in {list(OPTIONAL)!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == []


def test_the_check_sees_a_loaded_library() -> None:
    # the same probe after an import of one of them finds it (the test above can fail)
    code = (
        "import json, sys; import aggframe, polars; polars.DataFrame({'a': [1]}).to_pandas(); "
        f"print(json.dumps([m for m in {list(OPTIONAL)!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    if out.returncode != 0:  # pandas not installed: nothing to see
        return
    assert "pandas" in json.loads(out.stdout)
