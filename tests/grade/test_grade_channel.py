"""The judge<->runner frame format: round trips, and every malformed or oversized frame refused early."""

import io
import json
import struct

import pytest
import torch

from attnlab.grade.protocol.channel import (
    DTYPES,
    ChannelClosed,
    ChannelError,
    decode_tensors,
    encode_tensors,
    read_frame,
    write_frame,
)


class ExplodingStream:
    """Serves `data`, then fails the test if anything more is read (a cap that was not checked first)."""

    def __init__(self, data: bytes):
        self.data = data

    def read(self, n: int) -> bytes:
        if not self.data:
            raise AssertionError(f"read({n}) past the checked prefix: the cap was not applied before reading")
        chunk, self.data = self.data[:n], self.data[n:]
        return chunk


def frame_bytes(header: dict, payload: bytes = b"") -> bytes:
    stream = io.BytesIO()
    write_frame(stream, header, payload)
    return stream.getvalue()


def roundtrip(tensors):
    meta, payload = encode_tensors(tensors)
    header, data = read_frame(io.BytesIO(frame_bytes({"tensors": meta}, payload)), max_payload=len(payload))
    return decode_tensors(header["tensors"], data)


@pytest.mark.parametrize("dtype", list(DTYPES.values()), ids=list(DTYPES))
def test_every_dtype_round_trips_bit_exactly(dtype):
    source = torch.randn(3, 5, dtype=torch.float64) * 100
    t = source > 0 if dtype == torch.bool else source.to(dtype)
    back = roundtrip({"t": t, "scalar": t[0, 0], "empty": t[:0]})
    for name, original in {"t": t, "scalar": t[0, 0], "empty": t[:0]}.items():
        assert back[name].dtype == dtype and back[name].shape == original.shape
        assert torch.equal(back[name], original), name


def test_bfloat16_special_values_survive():
    t = torch.tensor([float("nan"), float("inf"), -0.0, 1e-40, 3.0e38], dtype=torch.bfloat16)
    back = roundtrip({"t": t})["t"]
    assert torch.equal(back.view(torch.int16), t.view(torch.int16))


def test_non_contiguous_tensors_are_sent_by_value():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    views = {"transposed": base.mT, "strided": base[:, ::2], "offset": base[1:, 2:]}
    back = roundtrip(views)
    for name, view in views.items():
        assert torch.equal(back[name], view) and back[name].is_contiguous(), name


def test_decoded_tensors_own_their_memory_and_are_plain():
    back = roundtrip({"a": torch.ones(3), "b": torch.zeros(3)})
    back["a"].add_(1)
    assert torch.equal(back["b"], torch.zeros(3)) and type(back["a"]) is torch.Tensor


def test_misaligned_offsets_decode():
    back = roundtrip({"flag": torch.tensor([True]), "x": torch.tensor([1.5, 2.5], dtype=torch.float64)})
    assert torch.equal(back["x"], torch.tensor([1.5, 2.5], dtype=torch.float64))


def test_oversized_header_is_refused_before_reading_it():
    stream = ExplodingStream(struct.pack(">I", 10_000_000))
    with pytest.raises(ChannelError, match="header of 10000000 bytes exceeds the cap of 65536"):
        read_frame(stream, max_payload=10)


def test_oversized_payload_is_refused_before_reading_it():
    header = json.dumps({"payload_bytes": 1 << 40}).encode()
    stream = ExplodingStream(struct.pack(">I", len(header)) + header)
    with pytest.raises(ChannelError, match="exceeds the cap of 1024"):
        read_frame(stream, max_payload=1024)


@pytest.mark.parametrize("raw, message", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe", "not valid JSON"),
    (b"[1, 2]", "must be a JSON object"),
    (b'{"payload_bytes": "12"}', "no valid payload_bytes"),
    (b'{"payload_bytes": -1}', "no valid payload_bytes"),
    (b"[" * 60000, "not valid JSON"),
])
def test_malformed_headers_are_refused(raw, message):
    with pytest.raises(ChannelError, match=message):
        read_frame(io.BytesIO(struct.pack(">I", len(raw)) + raw), max_payload=100)


def test_truncated_frames_and_clean_close_are_told_apart():
    with pytest.raises(ChannelClosed):
        read_frame(io.BytesIO(b""), max_payload=10)
    whole = frame_bytes({"x": 1}, b"abcdef")
    with pytest.raises(ChannelError, match="closed after 2 of 6 bytes of the frame payload"):
        read_frame(io.BytesIO(whole[:-4]), max_payload=10)


def good_meta():
    return encode_tensors({"t": torch.ones(2, 3)})


@pytest.mark.parametrize("change, message", [
    (lambda m: m["t"].update(nbytes=20), "nbytes 20 does not match"),
    (lambda m: m["t"].update(shape=[2, 4]), "nbytes 24 does not match"),
    (lambda m: m["t"].update(dtype="complex64"), "dtype 'complex64' is not allowed"),
    (lambda m: m["t"].update(dtype="object"), "is not allowed"),
    (lambda m: m["t"].update(shape=[2, -3]), "is not a list of"),
    (lambda m: m["t"].update(shape="2x3"), "is not a list of"),
    (lambda m: m["t"].update(offset=4), "offset 4 should be 0"),
])
def test_tensor_meta_is_validated(change, message):
    meta, payload = good_meta()
    change(meta)
    with pytest.raises(ChannelError, match=message):
        decode_tensors(meta, payload)


def test_payload_length_must_match_the_tensors():
    meta, payload = good_meta()
    with pytest.raises(ChannelError, match="payload has 28 bytes but the tensors use 24"):
        decode_tensors(meta, payload + b"xxxx")
    with pytest.raises(ChannelError, match="needs bytes 0..24 but the payload has 20"):
        decode_tensors(meta, payload[:20])


def test_element_cap():
    meta, payload = good_meta()
    with pytest.raises(ChannelError, match="exceed the cap of 5 elements"):
        decode_tensors(meta, payload, max_elements=5)


def test_bool_bytes_other_than_0_1_are_normalised():
    meta, _ = encode_tensors({"m": torch.tensor([True, False, True])})
    back = decode_tensors(meta, bytes([7, 0, 255]))["m"]
    assert back.tolist() == [True, False, True] and back.view(torch.uint8).tolist() == [1, 0, 1]


def test_unsendable_dtype_is_named():
    with pytest.raises(ChannelError, match="dtype torch.complex64 cannot be sent"):
        encode_tensors({"z": torch.zeros(2, dtype=torch.complex64)})


def test_the_output_tail_has_everything_printed_before_it_is_read():
    """Drain.settle() reads what is already in the pipe, in order, even while the thread is reading too:
    the feedback's "last output" must end with the last line printed before the reply."""
    import os

    from attnlab.grade.sandbox import pipes

    for _ in range(50):
        r, w = os.pipe()
        tail = pipes.OutputTail(1 << 20)
        drain = pipes.Drain(r, tail)
        lines = [f"line {i}\n".encode() for i in range(3000)]  # ~30 KB, written as the thread reads
        for line in lines:
            os.write(w, line)
        drain.settle()
        assert tail.text() == b"".join(lines).decode()
        os.close(w)
        drain.join(5)
