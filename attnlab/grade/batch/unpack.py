"""Copying an upload into a private directory: all of a zip, a tar archive (.tar, .tar.gz, .tgz, .tar.bz2,
.tar.xz: what macOS and Linux make) or a directory, or the members that belong to one student of an LMS export,
with every safety check made while copying.

Refused with a per-submission message: zip entries escaping with ../ or absolute paths, symlinks (in a zip
or a directory), non-UTF-8 names, zip bombs (caps on entries, total size and ratio, counted on the bytes
actually inflated, never trusted from the header). Tool folders and hidden files (__MACOSX, .venv, .git,
__pycache__, .DS_Store, ...) are skipped without being read, so a student who zips their whole project,
virtual environment included, is graded on their package alone.
"""

import bisect
import bz2
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from attnlab.core.i18n import Message
from attnlab.core.names import TAR_SUFFIXES
from attnlab.grade.sandbox.scratch import MAX_SUBMISSION_BYTES, MAX_SUBMISSION_FILES

MAX_ENTRIES = 2000  # files taken from one student's zip
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_RATIO = 200
MAX_LISTING = 200_000  # entries a zip may list at all (a class's LMS export holds every student's)
CHUNK = 1 << 16
TOOL_DIRS = frozenset({"__MACOSX", "__pycache__", "venv", "site-packages", "node_modules"})
MAX_TAR_SCAN = 4 * MAX_TOTAL_BYTES  # bytes a tar may inflate to in all: it is read in order, skipped members too
MAX_CLASS_TAR_BYTES = 4 << 30  # bytes a tar holding a whole class may inflate to in all (unpack_class_tar)
# archives students make that grade.py does not unpack (no reader in the standard library), by suffix
NOT_UNPACKED = {".rar": "RAR", ".7z": "7-Zip", ".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "Zstandard"}



class BadSubmission(Exception):
    """The upload cannot be graded; `message` (a catalogue message) is shown to the student."""

    def __init__(self, key: str, /, **values):
        self.message = Message(key, values)
        super().__init__(key)

    def __str__(self) -> str:
        return self.message.text("en")


# (path in the source, path in the upload); a source path ending in "/" takes everything below it
Members = tuple[tuple[str, str], ...]


def skipped(rel: str) -> bool:
    """Whether a path inside an upload belongs to a tool, not to the student: hidden or a tool folder."""
    return any(part.startswith(".") or part in TOOL_DIRS for part in PurePosixPath(rel).parts)


def placed(rel: str, members: Members) -> str | None:
    """Where the source's `rel` goes in the upload (itself when members is empty), or None if not taken."""
    if not members:
        return rel
    for src, dst in members:
        if src.endswith("/"):
            if rel.startswith(src) and len(rel) > len(src):
                return f"{dst}/{rel[len(src):]}" if dst else rel[len(src):]
        elif rel == src:
            return dst
    return None


def is_tar(name: str) -> bool:
    return name.lower().endswith(TAR_SUFFIXES)


def is_archive(name: str) -> bool:
    """A file grade.py unpacks: a zip or a tar archive."""
    return name.lower().endswith(".zip") or is_tar(name)


def not_unpacked(name: str) -> str | None:
    """The kind of archive `name` is when grade.py does not unpack it (RAR, 7-Zip, ...), else None."""
    if is_archive(name):
        return None
    return next((kind for suffix, kind in NOT_UNPACKED.items() if name.lower().endswith(suffix)), None)


def extract_archive(archive: Path, target: Path) -> int:
    """All of a zip or a tar archive (by its name) into `target`; the number of files written."""
    return extract_tar(archive, target) if is_tar(archive.name) else extract_zip(archive, target)


class _Capped(io.RawIOBase):
    """The inflated bytes of a tar, read through a count: past `cap` it raises. tarfile reads a member's header,
    a long name's or a pax header's record whole, however large its header says it is: uncapped, a few MB of
    gzip could make the judge allocate gigabytes before any check saw a member."""

    def __init__(self, inner, cap: int, refusal: BadSubmission):
        self.inner, self.cap, self.refusal, self.count = inner, cap, refusal, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        room = self.cap - self.count + 1
        if room <= 0:
            raise self.refusal
        data = self.inner.read(min(len(buffer), room))
        self.count += len(data)
        if self.count > self.cap:
            raise self.refusal
        buffer[: len(data)] = data
        return len(data)


def _inflated(raw) -> io.BufferedIOBase:
    """The tar inside `raw` (an open file), inflated by what its first bytes say it is compressed with."""
    magic = raw.read(6)
    raw.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw)
    if magic.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw)
    return raw


def _scan_cap(archive: Path, limit: int) -> tuple[int, BadSubmission]:
    """How many bytes reading `archive` may inflate to in all (at most `limit`, at most MAX_RATIO times its
    size), and the refusal past it."""
    size = max(archive.stat().st_size, 1)
    cap = min(limit, MAX_RATIO * size + (1 << 20))
    return cap, (BadSubmission("upload.archive_bomb", name=archive.name, ratio=MAX_RATIO) if cap < limit else
                 BadSubmission("upload.too_big", mb=limit >> 20))


def _tar_members(archive: Path, limit: int) -> Iterator[tuple[tarfile.TarFile, tarfile.TarInfo, PurePosixPath]]:
    """(the open tar, a member, its checked name) in the archive's order, read through the cap of _scan_cap: a
    member whose header promises more than that is refused before its bytes are read, a name that escapes or
    is not UTF-8 is refused; raises BadSubmission. A member named with a final "/" is a directory, whatever its
    type says (`folder`)."""
    cap, refusal = _scan_cap(archive, limit)
    listed = 0
    try:
        with open(archive, "rb") as raw, _inflated(raw) as inflated, \
                tarfile.open(fileobj=io.BufferedReader(_Capped(inflated, cap, refusal), CHUNK), mode="r|") as tf:
            while (member := tf.next()) is not None:
                listed += 1
                if listed > MAX_LISTING:
                    raise BadSubmission("upload.too_many_entries", count=listed, limit=MAX_LISTING)
                if member.size > cap:
                    raise refusal
                if folder(member) and not PurePosixPath(member.name).parts:
                    continue  # "./": the folder `tar -C DIR .` was given
                try:
                    member.name.encode("utf-8")
                except UnicodeEncodeError:  # tarfile keeps undecodable bytes as surrogates
                    raise BadSubmission("upload.name_not_utf8", name=repr(member.name)) from None
                yield tf, member, _check_name(member.name, member.name)
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:  # zlib.error and lzma.LZMAError are OSError
        raise BadSubmission("upload.bad_tar", problem=str(exc)) from None


def _write_member(tf: tarfile.TarFile, member: tarfile.TarInfo, dest: Path, written: int, limit: int) -> int:
    """The member's bytes into `dest`; the bytes written so far, these included (at most `limit`)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tf.extractfile(member) as src, open(dest, "wb") as out:
        while chunk := src.read(CHUNK):
            written += len(chunk)
            if written > limit:
                raise BadSubmission("upload.too_big", mb=limit >> 20)
            out.write(chunk)
    return written


def extract_tar(archive: Path, target: Path) -> int:
    """Every regular file of a tar archive (compressed or not) into `target`, with a zip's checks: a name that
    escapes, a link (symbolic or hard), too many files, too many bytes written and too many for the archive's
    size (a bomb) are refused; tool folders and hidden files are skipped. A tar is read in order (skipping a
    member means inflating it), so everything read counts against a cap, headers included."""
    written = count = 0
    try:
        for tf, member, rel in _tar_members(archive, MAX_TAR_SCAN):
            if member.issym() or member.islnk():
                raise BadSubmission("upload.tar_link", name=repr(member.name))
            if folder(member) or not member.isreg() or skipped(member.name):
                continue  # a device or fifo creates nothing; a tool's file is not the student's
            count += 1
            if count > MAX_ENTRIES:
                raise BadSubmission("upload.too_many_entries", count=count, limit=MAX_ENTRIES)
            written = _write_member(tf, member, target.joinpath(*rel.parts), written, MAX_TOTAL_BYTES)
    except (tarfile.TarError, OSError, EOFError) as exc:  # a file where a folder goes ("a", then "a/b.py")
        raise BadSubmission("upload.bad_tar", problem=str(exc)) from None
    return count


def tar_listing(archive: Path) -> list[str]:
    """The names of a class's tar archive's files ("./" left out; a link is listed as a file), hidden names and
    tool folders left out, as intake.listing lists a zip's; raises BadSubmission."""
    return [rel.as_posix() for _, m, rel in _tar_members(archive, MAX_CLASS_TAR_BYTES)
            if not folder(m) and (m.isreg() or m.issym() or m.islnk()) and not skipped(m.name)]


def folder(member: tarfile.TarInfo) -> bool:
    return member.isdir() or member.name.endswith("/")


def _kept_folder(rel: PurePosixPath, is_folder: bool) -> PurePosixPath | None:
    """The folder a class's member shows exists, where it is no tool's (a student's folder holding only
    .DS_Store, or nothing, is still that student's: intake.folders_in); None where there is none."""
    parts = rel.parts if is_folder else rel.parts[:-1]
    kept = next((i for i, part in enumerate(parts) if skipped(part)), len(parts))
    return PurePosixPath(*parts[:kept]) if kept else None


LINK_TARGET = "(a link in the archive: not unpacked)"  # what every unpacked link points to: nothing


def unpack_class_tar(archive: Path, target: Path) -> None:
    """All of a tar archive that holds a whole class (a folder per student, an LMS download) into `target`,
    where intake reads it as a directory and each student's files are then copied with a directory's checks
    (unpack.copy_tree). The caps are a class's (MAX_LISTING files, MAX_CLASS_TAR_BYTES, the bomb ratio) and a
    name that escapes is refused, for the whole archive. A link inside a student's folder becomes a symbolic
    link that points nowhere (LINK_TARGET), so that the copy of that student's files refuses it, naming it, as
    it refuses a link in a folder; nothing is ever written below it. A link at the archive's top is refused:
    it would stand for a whole student."""
    written, links = 0, set()
    try:
        for tf, member, rel in _tar_members(archive, MAX_CLASS_TAR_BYTES):
            if rel in links or any(parent in links for parent in rel.parents):
                continue  # nothing is written where a link is, or below one
            if (kept := _kept_folder(rel, folder(member))) is not None:
                target.joinpath(*kept.parts).mkdir(parents=True, exist_ok=True)
            if folder(member) or skipped(member.name):
                continue
            dest = target.joinpath(*rel.parts)
            if member.issym() or member.islnk():
                if len(rel.parts) == 1:
                    raise BadSubmission("upload.tar_link", name=repr(member.name))
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.is_file():
                    dest.unlink()  # a later member replaces an earlier one, as tar itself does
                if not dest.exists():
                    os.symlink(LINK_TARGET, dest)
                links.add(rel)
            elif member.isreg():
                written = _write_member(tf, member, dest, written, MAX_CLASS_TAR_BYTES)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BadSubmission("upload.bad_tar", problem=str(exc)) from None


def _check_name(name: str, shown: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\\" in name or ":" in name or not path.parts:
        raise BadSubmission("upload.escapes", name=repr(shown))
    return path


def open_zip(archive: Path) -> zipfile.ZipFile:
    """The zip, its names read as UTF-8 where they are: macOS's Archive Utility, PHP (Moodle) and Windows
    write UTF-8 names without the zip's UTF-8 flag, which zipfile reads as cp437 ("OlÃºwÃ¡..."). When every
    flagless name is UTF-8 the infos are renamed (zipfile checks entries against orig_filename, untouched)
    and `utf8_names` is set (the names are text); in a zip made on Windows, when they are not UTF-8 but every
    one is GB18030 (a Chinese Windows' code page), they are read as that; otherwise _check_entry refuses the
    non-ASCII flagless names.
    A zip written on Windows (its entries "made by" MS-DOS, 0) whose names use backslashes, as Windows
    PowerShell's Compress-Archive writes them, is read with slashes, as Info-ZIP's unzip reads it: a student's
    `attention\\softmax.py` was refused as a name escaping the upload, and nothing was graded."""
    zf = zipfile.ZipFile(archive)
    windows = [i for i in zf.infolist() if i.create_system == 0 and "\\" in i.filename]
    for info in windows:
        info.filename = info.filename.replace("\\", "/")
    if windows:
        zf.NameToInfo = {i.filename: i for i in zf.infolist()}
    flagless = [i for i in zf.infolist() if not i.flag_bits & 0x800 and not i.filename.isascii()]
    try:
        renamed = [(i, i.filename.encode("cp437").decode("utf-8")) for i in flagless]
    except UnicodeError:
        # Explorer's "Send to → Compressed folder" on a Chinese Windows writes names in its code page (GBK,
        # within GB18030) without the flag: `作业4/attention/...` was refused and nothing graded
        try:
            if not all(i.create_system == 0 for i in flagless):
                raise UnicodeError("not made on Windows")
            renamed = [(i, i.filename.encode("cp437").decode("gb18030")) for i in flagless]
        except UnicodeError:
            zf.utf8_names = False
            return zf
    for info, name in renamed:
        info.filename = name
    zf.NameToInfo = {i.filename: i for i in zf.infolist()}
    zf.utf8_names = True
    return zf


def _check_entry(info: zipfile.ZipInfo, utf8_names: bool) -> None:
    if not utf8_names and not info.flag_bits & 0x800 and any(ord(ch) > 127 for ch in info.filename):
        raise BadSubmission("upload.name_not_utf8", name=repr(info.filename))
    _check_name(info.filename, info.filename)
    if stat.S_ISLNK(info.external_attr >> 16):
        raise BadSubmission("upload.zip_symlink", name=repr(info.filename))


def _chosen(infos: list[zipfile.ZipInfo], members: Members, utf8_names: bool) -> list[tuple[zipfile.ZipInfo,
                                                                                           PurePosixPath]]:
    chosen = []
    for info in infos:
        where = placed(info.filename, members)
        if where is None:
            continue
        _check_entry(info, utf8_names)
        if info.is_dir() or skipped(where):
            continue
        chosen.append((info, _check_name(where, info.filename)))
    if len(chosen) > MAX_ENTRIES:
        raise BadSubmission("upload.too_many_entries", count=len(chosen), limit=MAX_ENTRIES)
    return chosen


class ClassZip:
    """An LMS export, opened (its directory of entries parsed and sorted) once per process however many
    students it holds; ZipFile reads members from several threads safely."""

    def __init__(self, archive: Path):
        self.zf = open_zip(archive)
        self.infos = sorted(self.zf.infolist(), key=lambda i: i.filename)
        self.names = [i.filename for i in self.infos]

    def entries(self, members: Members) -> list[zipfile.ZipInfo]:
        """The entries under each member's path (found by bisection, not by reading the whole list)."""
        found = []
        for src, _ in members:
            at = bisect.bisect_left(self.names, src)
            while at < len(self.names) and (self.names[at] == src or src.endswith("/") and
                                            self.names[at].startswith(src)):
                found.append(self.infos[at])
                at += 1
        return found


_CLASS_ZIPS: dict[tuple[str, int, int], ClassZip] = {}  # (path, mtime, size) -> the open export
_CLASS_ZIPS_LOCK = threading.Lock()
MAX_CLASS_ZIPS = 8  # one pushed out is closed by the garbage collector once no thread reads from it


def class_zip(archive: Path) -> ClassZip:
    info = archive.stat()
    key = (str(archive), info.st_mtime_ns, info.st_size)
    with _CLASS_ZIPS_LOCK:  # the other workers wait for this one parse rather than repeating it
        if key not in _CLASS_ZIPS:
            while len(_CLASS_ZIPS) >= MAX_CLASS_ZIPS:
                _CLASS_ZIPS.pop(next(iter(_CLASS_ZIPS)))
            _CLASS_ZIPS[key] = ClassZip(archive)
        return _CLASS_ZIPS[key]


def extract_zip(archive: Path, target: Path, members: Members = ()) -> int:
    """Extract the entries `members` takes (all, when empty) into `target`; the number of files written."""
    try:
        if members:
            export = class_zip(archive)
            return _extract(export.zf, export.entries(members), target, members)
        with open_zip(archive) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_LISTING:
                raise BadSubmission("upload.too_many_entries", count=len(infos), limit=MAX_LISTING)
            return _extract(zf, infos, target, members)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise BadSubmission("upload.bad_zip", problem=str(exc)) from None  # corrupt, encrypted, odd compression


def _extract(zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo], target: Path, members: Members) -> int:
    total = 0
    chosen = _chosen(infos, members, getattr(zf, "utf8_names", False))
    for info, rel in chosen:
        dest = target.joinpath(*rel.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with zf.open(info) as src, open(dest, "wb") as out:
            while chunk := src.read(CHUNK):
                written += len(chunk)
                total += len(chunk)
                if total > MAX_TOTAL_BYTES:
                    raise BadSubmission("upload.too_big", mb=MAX_TOTAL_BYTES >> 20)
                if written > MAX_RATIO * max(info.compress_size, 1) + CHUNK:
                    raise BadSubmission("upload.bomb", name=repr(info.filename))
                out.write(chunk)
    return len(chosen)


def walk_files(root: Path, prefix: str = "") -> Iterator[tuple[str, Path]]:
    """(path relative to the walk's start, prefixed, POSIX; the path) of everything under `root` that is not a
    directory, tool folders and hidden names left out; symlinked directories are yielded, never entered."""
    for top, dirs, files in os.walk(root, followlinks=False):
        rel_top = Path(top).relative_to(root).as_posix()
        base = prefix + ("" if rel_top == "." else rel_top + "/")
        kept = sorted(d for d in dirs if not skipped(d))
        links = [d for d in kept if os.path.islink(os.path.join(top, d))]
        dirs[:] = [d for d in kept if d not in links]
        for name in sorted(f for f in files if not skipped(f)) + links:
            yield base + name, Path(top) / name


def _sources(source: Path, members: Members) -> Iterator[tuple[str, Path]]:
    if not members:
        yield from walk_files(source)
        return
    for src, _ in members:
        path = source.joinpath(*PurePosixPath(src).parts)
        if src.endswith("/"):
            if path.is_dir() and not path.is_symlink():
                yield from walk_files(path, prefix=src)
        elif path.is_symlink() or path.exists():
            yield src, path


def taken_files(source: Path, members: Members = ()) -> list[tuple[PurePosixPath, Path, int]]:
    """(where it goes in the upload, the file, its size) of each regular file `members` takes (all, when
    empty) from the directory `source`, checked as copy_tree copies them: raises BadSubmission for a symlink,
    a name that escapes, too many files or too many bytes. Reading these files in place is as safe as
    copying them (attnlab.instructor.sources, which never runs them, does)."""
    taken, size = [], 0
    for rel, path in _sources(source, members):
        where = placed(rel, members)
        if where is None or skipped(where):
            continue
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            raise BadSubmission("upload.symlink", path=rel)
        if not stat.S_ISREG(info.st_mode):
            continue  # a FIFO or a device is nobody's homework
        size += info.st_size
        if len(taken) + 1 > MAX_SUBMISSION_FILES:
            raise BadSubmission("upload.too_many_files", path=str(source), limit=MAX_SUBMISSION_FILES)
        if size > MAX_SUBMISSION_BYTES:
            raise BadSubmission("upload.too_large", path=str(source), mb=MAX_SUBMISSION_BYTES >> 20)
        taken.append((_check_name(where, rel), path, info.st_size))
    return taken


def copy_tree(source: Path, target: Path, members: Members = ()) -> int:
    """Copy the regular files `members` takes (all, when empty) from the directory `source` into `target`;
    refuses symlinks (taken_files); the number of files copied."""
    taken = taken_files(source, members)
    for where, path, _ in taken:
        dest = target.joinpath(*where.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest, follow_symlinks=False)
    return len(taken)
