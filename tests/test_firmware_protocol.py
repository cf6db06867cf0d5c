"""The board's protocol logic (firmware/ledproto.py) fed bytes directly: both framings, every kind of
bad input, resynchronisation, blinks, and agreement with the host's encoder."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import ledproto as fw
from referee_app.led import adalight, native

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)


def board(count: int = 8) -> fw.Board:
    return fw.Board(count, now_ms=0)


def status(b: fw.Board) -> native.BoardStatus:
    replies = native.ReplyReader().feed(b.receive(native.status_query(), 0))
    assert replies and replies[0][0] == native.REPLY_STATUS
    return native.BoardStatus.from_payload(replies[0][1])


def test_crc_check_value_and_encoders_agree():
    assert fw.crc16(b"123456789") == 0x29B1 == native.crc16(b"123456789")
    pixels = [(1, 2, 3), (250, 128, 0)]
    assert native.frame(pixels, start=3) == fw.encode(fw.CMD_FRAME, bytes([0, 3, 1, 2, 3, 250, 128, 0]))
    assert native.brightness(77) == fw.encode(fw.CMD_BRIGHTNESS, bytes([77]))


def test_adalight_frame_sets_pixels():
    b = board(3)
    b.receive(adalight.encode_frame([RED, GREEN, BLUE]), 0)
    assert b.state.pixels(0) == [RED, GREEN, BLUE]
    assert b.parser.ada_frames == 1


def test_adalight_frame_split_across_reads():
    b = board(3)
    data = adalight.encode_frame([RED, GREEN, BLUE])
    for k in range(len(data)):  # one byte at a time, as a slow UART delivers them
        b.receive(data[k:k + 1], k)
    assert b.state.pixels(0) == [RED, GREEN, BLUE]


def test_native_frame_with_offset_and_brightness():
    b = board(4)
    b.receive(native.frame([GREEN, BLUE], start=2) + native.brightness(128), 0)
    assert b.state.base == [(0, 0, 0), (0, 0, 0), GREEN, BLUE]
    assert b.state.pixels(0)[2] == (0, 128, 0)


def test_garbage_before_a_frame_is_skipped_and_counted():
    b = board(2)
    junk = b"\x00\xffHello A d a HRx\x13"
    b.receive(junk + adalight.encode_frame([RED, BLUE]), 0)
    assert b.state.base == [RED, BLUE]
    assert b.parser.dropped >= len(junk) - 2


def test_wrong_checksum_is_rejected_with_an_error_reply_then_resyncs():
    b = board(2)
    bad = bytearray(native.frame([RED, RED]))
    bad[-1] ^= 0xFF
    reply = b.receive(bytes(bad) + native.frame([BLUE, GREEN]), 0)
    assert b.state.base == [BLUE, GREEN]
    assert b.parser.crc_errors == 1
    cmd, payload = native.ReplyReader().feed(reply)[0]
    assert (cmd, payload[0]) == (native.REPLY_ERROR, 1)


def test_truncated_frame_followed_by_a_good_one():
    """A native frame cut short: its CRC fails against the next frame's bytes, the parser rescans
    and finds the next header inside what it had taken for payload."""
    b = board(2)
    cut = native.frame([RED, RED])[:-4]
    b.receive(cut + native.frame([GREEN, GREEN]), 0)
    assert b.state.base == [GREEN, GREEN]


def test_truncated_frame_then_silence_is_dropped_by_timeout():
    b = board(2)
    b.receive(adalight.encode_frame([RED, RED])[:-2], 0)
    b.tick(fw.FRAME_TIMEOUT_MS + 1)
    assert b.parser.buf == bytearray()
    b.receive(adalight.encode_frame([BLUE, BLUE]), 400)
    assert b.state.base == [BLUE, BLUE]


def test_frame_for_more_leds_than_exist_sets_those_that_do():
    b = board(2)
    b.receive(adalight.encode_frame([RED, GREEN, BLUE, BLUE]), 0)
    assert b.state.base == [RED, GREEN]
    reply = b.receive(native.frame([BLUE, BLUE, BLUE]), 0)
    assert b.state.base == [BLUE, BLUE]
    assert native.ReplyReader().feed(reply)[0][1][0] == 5  # ERR_OVERFLOW
    assert b.parser.overflows == 2
    b.receive(native.frame([GREEN], start=300), 0)  # entirely past the end: nothing changes
    assert b.state.base == [BLUE, BLUE]


def test_unknown_version_and_command_answer_errors():
    b = board(2)
    replies = native.ReplyReader().feed(b.receive(native.encode(native.FRAME, b"\0\0\1\2\3", version=9)
                                                  + native.encode(0x42), 0))
    assert [(c, p[0]) for c, p in replies] == [(native.REPLY_ERROR, 2), (native.REPLY_ERROR, 3)]
    assert b.state.base == [(0, 0, 0)] * 2


def test_bad_adalight_header_checksum_is_not_a_frame():
    b = board(2)
    frame = bytearray(adalight.encode_frame([RED, RED]))
    frame[5] ^= 1
    b.receive(bytes(frame) + adalight.encode_frame([GREEN, GREEN]), 0)
    assert b.state.base == [GREEN, GREEN]


def test_status_reply_reports_counts():
    b = board(12)
    b.receive(b"junk" + native.frame([RED]), 0)
    s = status(b)
    assert (s.version, s.led_count, s.brightness) == (1, 12, 255)
    assert s.frames == 2 and s.dropped_bytes == 4  # the frame and the status query itself


def test_blink_runs_its_cycles_then_shows_the_base():
    b = board(3)
    b.receive(native.frame([GREEN, GREEN, GREEN]) + native.blink([1], RED, 200, 2), 1000)
    assert b.state.pixels(1050)[1] == RED  # first half of the period
    assert b.state.pixels(1150)[1] == GREEN  # second half
    assert b.state.pixels(1250)[1] == RED
    assert b.state.pixels(1400)[1] == GREEN and not b.state.blinks  # two cycles done


def test_newer_blink_replaces_older_on_same_leds_and_clear_stops_all():
    b = board(3)
    b.receive(native.blink([0, 1], RED, 100, 0) + native.blink([1], BLUE, 100, 0), 0)
    px = b.state.pixels(10)
    assert px[0] == RED and px[1] == BLUE
    b.receive(native.clear_blinks(), 20)
    assert b.state.pixels(30) == [(0, 0, 0)] * 3


def test_board_greets_when_idle_and_frame_reports_changes():
    b = fw.Board(2, now_ms=0, greet_every_ms=1000)
    assert b.boot(0) == fw.GREETING
    assert b.tick(500) == b""
    assert b.tick(1000) == fw.GREETING  # a second of silence: greet again (boards that never reset)
    b.receive(adalight.encode_frame([RED, RED]), 600)
    assert b.tick(1200) == b""  # the host spoke less than a second ago
    assert b.tick(1700) == b""  # greeted at 1000 already
    assert b.tick(2000) == fw.GREETING
    assert b.frame(2000) == [RED, RED]
    assert b.frame(2001) is None  # unchanged


@settings(max_examples=150, deadline=None)
@given(noise=st.lists(st.binary(max_size=40), max_size=6), use_native=st.booleans())
def test_any_noise_then_a_frame_ends_showing_that_frame(noise, use_native):
    """Whatever garbage comes first (including cut frames), the board keeps running; after the
    reader times out on a half frame, the next complete frame is shown."""
    b = board(4)
    t = 0
    for chunk in noise:
        b.receive(chunk, t)
        t += 10
    b.tick(t + fw.FRAME_TIMEOUT_MS + 1)
    t += fw.FRAME_TIMEOUT_MS + 2
    pixels = [(7, 8, 9), (10, 11, 12), (13, 14, 15), (16, 17, 18)]
    b.receive(native.frame(pixels) if use_native else adalight.encode_frame(pixels), t)
    assert b.state.base == pixels


def test_ledproto_stays_in_the_micropython_subset():
    """The board runs this file under MicroPython: no imports (no typing, dataclasses, enum) and no
    `from __future__`, which MicroPython lacks."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(fw.__file__).read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert imports == []
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]  # no variable annotations
