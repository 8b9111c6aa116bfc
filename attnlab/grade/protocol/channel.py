"""Frames between the judge and a runner: a small JSON header, then raw bytes. Never pickle.

A frame is a 4-byte big-endian header length, a UTF-8 JSON object carrying "payload_bytes", then that many
payload bytes. Both lengths are checked against caps before anything is read, so a hostile peer can make
the reader fail but never make it allocate or wait for more than the caps allow.
Tensors travel as `encode_tensors` meta (dtype, shape, offset, nbytes per name) plus one payload holding
their contiguous bytes back to back; `decode_tensors` rebuilds plain CPU tensors from those bytes only.
"""

import json
import math
import struct
from typing import Any, BinaryIO

import torch

from attnlab.core.inputs import raw_bytes

MAX_HEADER = 65536
MAX_ELEMENTS = 1 << 30  # ~4 GiB of float32: more than any exercise needs, small enough to refuse abuse
MAX_DIMS = 16
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
          "uint8": torch.uint8}  # uint8: a generator's state
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
ITEM_SIZES = {dtype: dtype.itemsize for dtype in DTYPES.values()}
_LENGTH = struct.Struct(">I")


class ChannelError(Exception):
    """The peer sent something that is not a well-formed frame (or closed the channel mid-frame)."""


class ChannelClosed(ChannelError):
    """The peer closed the channel cleanly, between frames."""


class ChannelTruncated(ChannelError):
    """The peer closed the channel in the middle of a frame."""


def write_frame(stream: BinaryIO, header: dict, payload: bytes = b"") -> None:
    header = {**header, "payload_bytes": len(payload)}
    raw = json.dumps(header, separators=(",", ":")).encode()
    _write_all(stream, b"".join((_LENGTH.pack(len(raw)), raw, payload)))  # one write: the reader wakes once
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()


def _write_all(stream: BinaryIO, data: bytes) -> None:
    """Raw (unbuffered) streams may write only part of the data: continue until all of it is out."""
    view = memoryview(data)
    while view:
        written = stream.write(view)
        if not written:
            raise ChannelError(f"could not write to the channel ({len(view)} bytes left)")
        view = view[written:]


def read_frame(stream: BinaryIO, *, max_header: int = MAX_HEADER, max_payload: int) -> tuple[dict, bytes]:
    """One frame from `stream`; raises ChannelError naming what was wrong, ChannelClosed at a clean EOF."""
    prefix = _read_exact(stream, _LENGTH.size, what="frame length", eof_ok=True)
    (header_len,) = _LENGTH.unpack(prefix)
    if header_len > max_header:
        raise ChannelError(f"frame header of {header_len} bytes exceeds the cap of {max_header}")
    header = _parse_header(_read_exact(stream, header_len, what="frame header"))
    size = header.get("payload_bytes")
    if type(size) is not int or size < 0:
        raise ChannelError(f"frame header has no valid payload_bytes (got {size!r})")
    if size > max_payload:
        raise ChannelError(f"frame payload of {size} bytes exceeds the cap of {max_payload}")
    return header, _read_exact(stream, size, what="frame payload")


def _parse_header(raw: bytes) -> dict:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ChannelError(f"frame header is not valid JSON: {exc}") from None
    if not isinstance(header, dict):
        raise ChannelError(f"frame header must be a JSON object, got {type(header).__name__}")
    return header


def _read_exact(stream: BinaryIO, n: int, *, what: str, eof_ok: bool = False) -> bytearray:
    """Exactly n bytes (pipes return short reads); writable, so tensors are built from it without warnings."""
    buf = bytearray()
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            if eof_ok and not buf:
                raise ChannelClosed("channel closed")
            raise ChannelTruncated(f"channel closed after {len(buf)} of {n} bytes of the {what}")
        buf += chunk
    return buf


def encode_tensors(tensors: dict[str, torch.Tensor]) -> tuple[dict, bytes]:
    meta: dict[str, dict] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise ChannelError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in DTYPE_NAMES:
            raise ChannelError(f"{name}: dtype {t.dtype} cannot be sent (allowed: {', '.join(DTYPES)})")
        data = raw_bytes(t)
        meta[name] = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "offset": offset,
                      "nbytes": len(data)}
        chunks.append(data)
        offset += len(data)
    return meta, b"".join(chunks)


def decode_tensors(meta: Any, payload: bytes, *, max_elements: int = MAX_ELEMENTS) -> dict[str, torch.Tensor]:
    """Plain CPU tensors from `meta` (as made by encode_tensors); every field is validated first."""
    if not isinstance(meta, dict):
        raise ChannelError(f"tensor meta must be an object, got {type(meta).__name__}")
    if not isinstance(payload, bytearray):  # frombuffer wants a writable buffer; it is never written (clone)
        payload = bytearray(payload)
    out: dict[str, torch.Tensor] = {}
    offset = total = 0
    for name, item in meta.items():
        dtype, shape, nbytes = _check_item(name, item, offset)
        total += math.prod(shape)
        if total > max_elements:
            raise ChannelError(f"tensors exceed the cap of {max_elements} elements (at {name!r})")
        if offset + nbytes > len(payload):
            raise ChannelError(f"{name!r}: needs bytes {offset}..{offset + nbytes} but the payload has "
                               f"{len(payload)}")
        out[name] = _tensor_from(payload, offset, dtype, shape)
        offset += nbytes
    if offset != len(payload):
        raise ChannelError(f"payload has {len(payload)} bytes but the tensors use {offset}")
    return out


def _check_item(name: Any, item: Any, offset: int) -> tuple[torch.dtype, list[int], int]:
    if not isinstance(name, str) or not isinstance(item, dict):
        raise ChannelError(f"tensor entry {name!r} is malformed")
    dtype = DTYPES.get(item.get("dtype")) if isinstance(item.get("dtype"), str) else None
    if dtype is None:
        raise ChannelError(f"{name!r}: dtype {item.get('dtype')!r} is not allowed "
                           f"(allowed: {', '.join(DTYPES)})")
    shape = item.get("shape")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or not all(type(d) is int and 0 <= d <= MAX_ELEMENTS for d in shape)):
        raise ChannelError(f"{name!r}: shape {shape!r} is not a list of at most {MAX_DIMS} sizes")
    if item.get("offset") != offset:
        raise ChannelError(f"{name!r}: offset {item.get('offset')!r} should be {offset} (tensors are packed)")
    nbytes = item.get("nbytes")
    expected = math.prod(shape) * ITEM_SIZES[dtype]
    if type(nbytes) is not int or nbytes != expected:
        raise ChannelError(f"{name!r}: nbytes {nbytes!r} does not match shape {shape} of {item['dtype']} "
                           f"({expected} bytes)")
    return dtype, shape, nbytes


def _tensor_from(payload: bytes, offset: int, dtype: torch.dtype, shape: list[int]) -> torch.Tensor:
    numel = math.prod(shape)
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    if dtype == torch.bool:  # a byte other than 0/1 is not a valid bool: normalise instead of trusting it
        return torch.frombuffer(payload, dtype=torch.uint8, count=numel, offset=offset).reshape(shape) != 0
    # a copy of its bytes: each tensor owns its memory, nothing aliases the receive buffer or another tensor
    own = bytearray(memoryview(payload)[offset:offset + numel * ITEM_SIZES[dtype]])
    return torch.frombuffer(own, dtype=dtype).view(shape)
