"""head_tail and cut_stream: observations cut to their head and tail, clean of control bytes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codefrontier.sandbox.textcut import (
    cut_marker,
    cut_stream,
    excerpt_bytes,
    head_tail,
    strip_controls,
)


def test_short_text_is_kept_whole():
    assert head_tail("hello\n\tworld", 100) == ("hello\n\tworld", False)
    assert head_tail("", 0) == ("", False)
    assert head_tail("abc", 3) == ("abc", False)


def test_long_text_keeps_both_ends_around_a_marker():
    text = "".join(f"{i}\n" for i in range(10_000))
    cut, truncated = head_tail(text, 100)
    assert truncated
    assert cut.startswith("0\n1\n2\n") and cut.endswith("9998\n9999\n")
    assert cut_marker(len(text) - 100) in cut
    assert len(cut) == 100 + len(cut_marker(len(text) - 100))


def test_odd_limits_and_zero():
    assert head_tail("abcdefg", 3) == ("ab" + cut_marker(4) + "g", True)
    assert head_tail("abcdefg", 1) == ("a" + cut_marker(6), True)
    assert head_tail("abcdefg", 0) == (cut_marker(7), True)
    with pytest.raises(ValueError):
        head_tail("x", -1)


def test_control_characters_are_stripped_but_newline_and_tab():
    raw = "a\x00b\x1b[31mc\r\n\td\x7fe\x85f\x07"
    assert strip_controls(raw) == "ab[31mc\n\tdef"
    assert head_tail(raw, 100) == ("ab[31mc\n\tdef", False)


@given(st.text(), st.integers(min_value=0, max_value=50))
def test_never_longer_than_limit_plus_marker_and_never_a_control(text, limit):
    cut, truncated = head_tail(text, limit)
    clean = strip_controls(text)
    assert truncated == (len(clean) > limit)
    if truncated:
        assert len(cut) == limit + len(cut_marker(len(clean) - limit))
    else:
        assert cut == clean
    assert strip_controls(cut) == cut


def test_cut_stream_whole_when_nothing_was_dropped():
    data = "héllo wörld\n".encode() * 3
    assert cut_stream(data, b"", len(data), 100) == (data.decode(), False)
    assert cut_stream(data, b"", len(data), 10)[1] is True


def test_cut_stream_counts_what_the_reader_dropped():
    limit = 10
    keep = excerpt_bytes(limit)
    stream = bytes(range(48, 58)) * 10_000  # "0123456789" repeated
    head, tail = stream[:keep], stream[-keep:]
    cut, truncated = cut_stream(head, tail, len(stream), limit)
    assert truncated
    assert cut == "01234" + cut_marker(len(stream) - limit) + "56789"


def test_cut_stream_of_binary_garbage_is_clean_text():
    garbage = bytes(range(256)) * 1000
    cut, truncated = cut_stream(garbage[:100], garbage[-100:], len(garbage), 50)
    assert truncated and "\x00" not in cut and strip_controls(cut) == cut


def test_joined_stream_ends_keep_the_outer_ends():
    from codefrontier.judge.runs import StreamEnds

    whole = StreamEnds(b"abc", b"", 3)
    gapped = StreamEnds(b"0123", b"wxyz", 1000)
    assert whole.then(whole, 4) == StreamEnds(b"abcabc", b"", 6)
    assert whole.then(gapped, 4) == StreamEnds(b"abc0", b"wxyz", 1003)
    assert gapped.then(whole, 4) == StreamEnds(b"0123", b"zabc", 1003)
    assert gapped.then(gapped, 4) == StreamEnds(b"0123", b"wxyz", 2000)
