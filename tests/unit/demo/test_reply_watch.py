"""The bounds of one model reply: idle waits that comments do not reset, a deadline, a size cap."""

from __future__ import annotations

import pytest
from openai_model import OpenAICompatibleModel
from protocol import ModelError
from reply_watch import ReplyLimits, ReplyWatch

LIMITS = ReplyLimits(idle_timeout_s=10, deadline_s=30, max_reply_chars=100)


def test_a_part_restarts_the_idle_wait() -> None:
    """After a part of the reply the next read may wait the whole idle timeout again."""
    watch = ReplyWatch(LIMITS, started=100.0)
    assert watch.wait_s(104.0) == 6.0
    watch.part(108.0)
    assert watch.wait_s(108.0) == 10.0


def test_comments_do_not_restart_the_idle_wait() -> None:
    """Bytes without a part (comments) leave the idle wait running, and the error says so."""
    watch = ReplyWatch(LIMITS, started=100.0)
    watch.heard()
    assert watch.wait_s(107.0) == 3.0
    with pytest.raises(
        ModelError,
        match=r"^The model API sent only keep-alive comments for 10 s; the reply was stopped\.$",
    ):
        raise watch.expired()


def test_silence_is_named_as_silence() -> None:
    """An idle wait that ran out with nothing at all says that nothing came."""
    watch = ReplyWatch(LIMITS, started=0.0)
    with pytest.raises(
        ModelError, match=r"^The model API sent nothing for 10 s; the reply was stopped\.$"
    ):
        raise watch.expired()


def test_the_deadline_bounds_a_reply_whose_parts_keep_coming() -> None:
    """Parts keep the idle wait short of its end, but not past the deadline."""
    watch = ReplyWatch(LIMITS, started=0.0)
    for now in range(0, 29, 5):
        watch.part(float(now))
    assert watch.wait_s(28.0) == 2.0
    assert watch.left_s(40.0) == 0.0
    with pytest.raises(
        ModelError, match=r"^The model API's reply took longer than 30 s; it was stopped\.$"
    ):
        raise watch.expired()


def test_a_wait_cut_short_by_the_deadline_is_named_as_the_deadline() -> None:
    """When the deadline is the wait's nearer end, the error names it, whatever the clock says."""
    watch = ReplyWatch(LIMITS, started=0.0)
    watch.part(25.0)
    assert watch.wait_s(29.999) == pytest.approx(0.001)
    with pytest.raises(
        ModelError, match=r"^The model API's reply took longer than 30 s; it was stopped\.$"
    ):
        raise watch.expired()


def test_a_reply_past_the_size_cap_is_stopped() -> None:
    """Up to max_reply_chars is taken; one more character is an error naming the limit."""
    watch = ReplyWatch(ReplyLimits(max_reply_chars=1_000_000), started=0.0)
    watch.grow(1_000_000)
    with pytest.raises(
        ModelError,
        match=(
            r"^The model's reply is longer than 1,000,000 characters, the most this page "
            r"takes; it was stopped\.$"
        ),
    ):
        watch.grow(1_000_001)


def test_the_defaults_are_a_minute_idle_five_minutes_and_a_million_characters() -> None:
    """Without settings a reply may idle 60 s, take 300 s and hold 1,000,000 characters."""
    assert ReplyLimits.from_settings({}) == ReplyLimits(60.0, 300.0, 1_000_000)


def test_the_model_settings_set_the_limits() -> None:
    """from_settings reads idle_timeout_s, deadline_s and max_reply_chars from the settings."""
    settings = {
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "m",
        "api_key": "k",
        "idle_timeout_s": 2,
        "deadline_s": 5.5,
        "max_reply_chars": 2048,
    }
    model = OpenAICompatibleModel.from_settings(settings, 0)
    assert model.limits == ReplyLimits(2.0, 5.5, 2048)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("idle_timeout_s", 0, r"^idle_timeout_s must be a number from 0\.05 to 3,600\.$"),
        ("deadline_s", "soon", r"^deadline_s must be a number from 0\.05 to 86,400\.$"),
        ("max_reply_chars", True, r"^max_reply_chars must be a number from 1 to 100,000,000\.$"),
        ("deadline_s", float("inf"), r"^deadline_s must be a number from 0\.05 to 86,400\.$"),
    ],
)
def test_a_bad_limit_is_refused_by_name(name: str, value: object, message: str) -> None:
    """A limit that is not a number in its range is a ModelError naming it."""
    with pytest.raises(ModelError, match=message):
        ReplyLimits.from_settings({name: value})
