"""What every Python command line of layerbench shares (report.py, compare.py, the Slurm fleet,
torch_models.py, torch_layers.py): usage errors in one line with exit 2, numeric flags that
refuse NaN and infinity, and one rule for output paths.

The output rule is the binary's `-o` rule (harness/results/results_file.cpp): an output replaces
only a regular file, and an existing one only with --force; a link or a device (/dev/null,
/dev/stdout) is never replaced. An output folder may exist (the tool's own files in it are
replaced: they are derived, nothing measured is lost) but must be a folder. Each problem raises
BadInput with one line naming the flag and the path; the tools print it and exit 2.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import stat
import sys
from pathlib import Path


class BadInput(Exception):
    """A flag, file or field the user gave that cannot be used: one line, exit code 2."""


def pass_bytes_through():
    """Standard output writes an argument or file name that is not UTF-8 (Python holds its
    bytes as lone surrogates) as the bytes it was given, whatever the locale: under a UTF-8
    locale other than C.UTF-8 Python would raise UnicodeEncodeError printing it."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")


class _StoreOnce(argparse._StoreAction):
    """A flag with one value, refused when given again: argparse would keep the last silently,
    so `-o a -o b` wrote to b alone."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_flags_given", {})
        if option_string and self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice "
                         f"({given[self.dest]!r}, then {values!r}); give it once")
        given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors in one line ('PROG: argument --x: ...'), exit code 2, and
    a flag of one value refused when given twice."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_known_args(self, args=None, namespace=None):
        parsed, extras = super().parse_known_args(args, namespace)
        parsed.__dict__.pop("_flags_given", None)
        return parsed, extras

    def error(self, message):
        self.exit(2, f"{self.prog}: {' '.join(message.split())}\n")


def number(kind=float, *, minimum=None, above=None, below=None):
    """An argparse type: a finite number of `kind` (int or float) within the bounds given.
    NaN and infinity (and 1e400, which reads as infinity) switch off every comparison made with
    them, so they are refused for every numeric flag."""
    words = "an integer" if kind is int else "a number"

    def parse(text):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {words}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number (NaN, infinity "
                                             "and values beyond a double's range are refused)")
        for bound, holds, relation in ((minimum, lambda b: value >= b, "at least"),
                                       (above, lambda b: value > b, "above"),
                                       (below, lambda b: value < b, "below")):
            if bound is not None and not holds(bound):
                raise argparse.ArgumentTypeError(f"{text!r}: must be {relation} {bound:g}")
        return value
    return parse


def path_text(text: str) -> str:
    """An argparse type for a path flag: an empty path names nothing, yet Path('') is the
    current folder, where a tool would write or read in place of what the user meant."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file or folder; give one")
    return text


def _kind(path: Path, flag: str, given=None) -> str:
    """What stands at PATH, links not followed: "missing", "link", "folder", "file" or
    "other" (a device, FIFO or socket). A path the system cannot look up (a name too long for
    the file system, a folder without permission) raises BadInput naming the path given."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as e:
        raise BadInput(f"{flag}: {given or path}: cannot be used ({e.strerror})") from None
    if stat.S_ISLNK(mode):
        return "link"
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _refuse_non_regular(path: Path, flag: str, what: str):
    kind = _kind(path, flag)
    if kind == "link":
        raise BadInput(f"{flag}: {path}: is a symbolic link; {what} replaces only a regular file "
                       "(give the file it points to, or choose another path)")
    if kind in ("folder", "other"):
        words = "a folder" if kind == "folder" else "not a regular file"
        raise BadInput(f"{flag}: {path}: exists and is {words}; {what} replaces only a regular "
                       "file (choose another path)")


def check_folder_path(folder, flag: str, given=None) -> Path:
    """Raises BadInput when FOLDER could not be a folder: it, or the nearest part of its path
    that exists, is something else (a regular file, a device such as /dev/null). The message
    names `given` (the path the user gave, FOLDER by default)."""
    folder = Path(folder)
    given = folder if given is None else given
    for part in [folder, *folder.parents]:
        kind = _kind(part, flag, given)
        if kind == "missing":
            continue
        if kind == "folder" or kind == "link" and os.path.isdir(part):
            break
        if kind == "link" and not os.path.exists(part):
            where = "" if part == given else f"{part} "
            raise BadInput(f"{flag}: {given}: {where}is a symbolic link to {os.readlink(part)}, "
                           "which does not exist; choose another path")
        where = "exists and" if part == given else f"{part}"
        raise BadInput(f"{flag}: {given}: {where} is not a folder; choose another path")
    return folder


def _make_folder(folder: Path, flag: str, given=None):
    """Creates the folder and its parents, or raises BadInput naming the flag, the path given
    and the part of it that stands in the way (a regular file, a device, a read-only file
    system)."""
    check_folder_path(folder, flag, given)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        where = f"{folder}:" if given in (None, folder) else f"{given}: {folder}"
        raise BadInput(f"{flag}: {where} cannot be created ({e.strerror}); choose a path in a "
                       "folder you can write") from None


def check_output_file(path, flag: str, force: bool) -> Path:
    """Checks that PATH may be written as a new file (its folder is created): a regular file
    there only with force, anything else there never. Returns it as a Path."""
    path = Path(path)
    _refuse_non_regular(path, flag, "an output")
    if _kind(path, flag) == "file" and not force:
        raise BadInput(f"{flag}: {path}: already exists; pass --force to overwrite it or choose "
                       "another path")
    _make_folder(path.parent, flag, path)
    return path


def output_folder(path, flag: str) -> Path:
    """Creates the output folder PATH (an existing folder is used as it is); returns it."""
    folder = Path(path)
    _make_folder(folder, flag)
    return folder


def write_text(path, text: str, flag: str):
    """Writes the file through a temporary one beside it, renamed over it: a killed or refused
    write leaves the previous content. A problem raises BadInput naming the flag and file."""
    path = Path(path)
    _refuse_non_regular(path, flag, "an output")
    tmp = path.with_name(path.name + ".tmp")
    _refuse_non_regular(tmp, flag, "an output")
    try:
        tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise BadInput(f"{flag}: {path}: cannot be written ({e.strerror}); choose a path in a "
                       "folder you can write") from None
