"""Read and write errors in words (issue 29): the one corrupt file among several is named, a
user's own scan of paths that match nothing says so without Polars' internals, and an output
directory that cannot be made is named with the system's reason."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import aggframe as af
from aggframe.interop.cli import main
from tests.interop.test_cli_errors import fails

LABELS = pl.DataFrame({"y_true": [0, 1, 2, 1] * 10, "y_pred": [0, 1, 1, 1] * 10})


def _three(folder: Path, bad: int | None, *, where: str = "page") -> Path:
    """Three Parquet files in a folder; file ``bad`` corrupt in a data page (its footer intact) or
    in its footer."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        LABELS.write_parquet(folder / f"part {i}.parquet")
    if bad is not None:
        path = folder / f"part {bad}.parquet"
        data = bytearray(path.read_bytes())
        span = range(8, 60) if where == "page" else range(len(data) - 40, len(data) - 8)
        for j in span:
            data[j] ^= 0xFF
        path.write_bytes(bytes(data))
    return folder


@pytest.mark.parametrize("where", ["page", "footer"])
@pytest.mark.parametrize("bad", [0, 2])
def test_the_corrupt_file_among_several_is_named(tmp_path: Path, bad: int, where: str) -> None:
    folder = _three(tmp_path / "runs", bad, where=where)
    with pytest.raises(af.errors.SourceError) as info:
        af.from_labels(af.scan(str(folder))).evaluate("f1", "macro")
    text = str(info.value)
    named = repr(str(folder / f"part {bad}.parquet"))
    # a broken footer is found when the scan is made (named then); a broken page when read
    assert (f"the file {named}" if where == "page" else named) in text
    others = [f"part {i}.parquet" for i in range(3) if i != bad]
    assert not any(o in text for o in others)


def test_a_good_folder_reads_and_one_corrupt_file_alone_is_named_as_before(tmp_path: Path) -> None:
    good = _three(tmp_path / "good", None)
    assert af.from_labels(af.scan(str(good))).evaluate("f1", "macro").height == 1
    one = tmp_path / "one.parquet"
    LABELS.write_parquet(one)
    data = bytearray(one.read_bytes())
    data[8:60] = bytes(b ^ 0xFF for b in data[8:60])
    one.write_bytes(bytes(data))
    with pytest.raises(af.errors.SourceError, match=re.escape(f"could not read {str(one)!r}: ")):
        af.from_labels(af.scan(str(one))).evaluate("f1", "macro")


def test_the_cli_names_the_corrupt_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = _three(tmp_path / "runs", 1)
    line = fails(capsys, ["report", str(folder), "--measures", "f1"], "input")
    assert f"the file {str(folder / 'part 1.parquet')!r}" in line


@pytest.mark.parametrize(
    "scan",
    [
        lambda p: pl.scan_parquet(f"{p}/*.parquet"),
        lambda p: pl.scan_csv(f"{p}/*.csv"),
        lambda p: pl.scan_ipc(f"{p}/*.arrow"),
    ],
)
def test_a_users_scan_of_nothing_says_so(tmp_path: Path, scan: object) -> None:
    missing = tmp_path / "it's missing"  # a quote and a space in the path
    lf = scan(missing)  # type: ignore[operator]
    with pytest.raises(af.errors.SourceError) as info:
        af.from_labels(lf).evaluate("f1", "macro")
    text = str(info.value)
    assert "no file matches" in text
    assert str(missing) in text
    assert "PlRefPath" not in text
    assert "inner" not in text
    assert "expanded paths" not in text


def test_an_output_directory_that_cannot_be_made(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "labels.parquet"
    LABELS.write_parquet(data)
    blocked = tmp_path / "a file"
    blocked.write_text("in the way")
    # under a path that does not exist and cannot be made (/proc refuses new folders)
    line = fails(capsys, ["cells", str(data), "-o", "/proc/aggframe-x/store"], "output")
    assert line == (
        "aggframe: output error: cannot create the cell store directory '/proc/aggframe-x/store': "
        "No such file or directory"
    )
    assert "Errno" not in line
    assert "FileNotFoundError" not in line
    assert main(["cells", str(data), "-o", str(tmp_path / "store")]) == 0


def test_files_that_disagree_are_not_read_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A disagreement between files (a type, a column more) is no one file's fault: the files are
    not read whole one by one to find one; a broken file's error is looked into."""
    from aggframe.intake import read_errors
    from aggframe.intake.origin import Origin

    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(read_errors, "bad_file", lambda files: asked.append(tuple(files)))
    origin = Origin("files", inputs=("runs",), files=("runs/a.parquet", "runs/b.parquet"))
    mismatch = r"could not read 'runs' \(2 files\): data type mismatch"
    with pytest.raises(af.errors.SourceError, match=mismatch), read_errors.reading(origin):
        raise pl.exceptions.SchemaError("data type mismatch for column y_pred")
    assert asked == []
    with pytest.raises(af.errors.SourceError, match="File out of specification"), read_errors.reading(origin):
        raise pl.exceptions.ComputeError("parquet: File out of specification: Invalid thrift")
    assert asked == [("runs/a.parquet", "runs/b.parquet")]
