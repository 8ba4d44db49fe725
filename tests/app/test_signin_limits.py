"""The sign-in limits (app/signin_limits.py) on their own: which attempts are refused, with what wait,
and that the tables they keep stay bounded. The real server's flood is tests/app/test_hardening_access.py."""

from __future__ import annotations

import asyncio

import pytest

from app import signin_limits
from app.signin_limits import BUSY_RETRY_S, MAX_CHECKS_MEMORY_MB, RecentTimes, SignInLimiter, shown_name
from fpkg.config import MAX_SIGNIN_CHECKS, AccessSettings
from fpkg.errors import SettingsError


def settings_error(env: dict[str, str]) -> str:
    """The message a start with `env` stops with."""
    with pytest.raises(SettingsError) as raised:
        _ = AccessSettings.from_env(env).signin_checks
    return str(raised.value)


def test_a_name_with_an_attempt_running_is_refused_until_it_is_answered():
    limiter = SignInLimiter(checks=2, per_address=10, per_minute=60)
    assert limiter.admit("Cara", "10.0.0.1") is None
    refusal = limiter.admit("cara", "10.0.0.2")  # the same name, another address: not in parallel
    assert refusal is not None and "still being checked" in refusal.reason and refusal.retry_after_s >= 1
    limiter.release("Cara")
    assert limiter.admit("cara", "10.0.0.2") is None


def test_an_address_past_its_limit_waits_out_the_window_and_a_success_does_not_count():
    limiter = SignInLimiter(checks=2, per_address=3, per_minute=60)
    for n in range(3):
        assert limiter.admit(f"name{n}", "10.0.0.1") is None
        limiter.release(f"name{n}")
    refusal = limiter.admit("name9", "10.0.0.1")
    assert refusal is not None and "from this address" in refusal.reason
    assert 55 <= refusal.retry_after_s <= 60 and refusal.first_for_address
    assert not limiter.admit("name9", "10.0.0.1").first_for_address  # audited once per window
    assert limiter.admit("name9", "10.0.0.2") is None  # another address is not held up
    limiter.release("name9")
    limiter.succeeded("10.0.0.2")  # ...and its success gives its attempt back
    for n in range(3):
        assert limiter.admit(f"other{n}", "10.0.0.2") is None
        limiter.release(f"other{n}")


def test_every_address_together_has_a_limit_too():
    limiter = SignInLimiter(checks=2, per_address=100, per_minute=5)
    for n in range(5):
        assert limiter.admit(f"n{n}", f"10.0.1.{n}") is None
    refusal = limiter.admit("n9", "10.0.1.9")
    assert refusal is not None and "at the moment" in refusal.reason


def test_password_checks_run_at_most_checks_at_a_time_and_the_rest_are_refused_at_once():
    limiter = SignInLimiter(checks=2, per_address=100, per_minute=100)
    running, most, refused = 0, 0, []

    async def attempt(n: int, hold: asyncio.Event) -> None:
        nonlocal running, most
        refusal = limiter.admit(f"name{n}", f"10.0.2.{n}")
        if refusal is not None:
            refused.append(refusal)
            return
        try:
            async with limiter.checked():
                running += 1
                most = max(most, running)
                await hold.wait()
                running -= 1
        finally:
            limiter.release(f"name{n}")

    async def flood() -> None:
        hold = asyncio.Event()
        first = [asyncio.create_task(attempt(n, hold)) for n in range(2)]
        await asyncio.sleep(0)  # both checks under way
        await asyncio.gather(*(attempt(n, hold) for n in range(2, 12)))  # answered while the two still run
        assert len(refused) == 10 and running == 2
        hold.set()
        await asyncio.gather(*first)
        await attempt(12, hold)  # a slot is free again

    asyncio.run(flood())
    assert most == 2 and len(refused) == 10
    assert all("every password check is busy" in r.reason and r.retry_after_s == BUSY_RETRY_S for r in refused)


def test_the_most_checks_allowed_at_once_stay_under_the_memory_bound():
    from accounts.users_file import _HASHER

    assert MAX_SIGNIN_CHECKS * _HASHER.memory_cost / 1024 <= MAX_CHECKS_MEMORY_MB  # memory_cost is in KiB
    assert f"from 1 to {MAX_SIGNIN_CHECKS}" in settings_error({"FPKG_SIGNIN_CHECKS": str(MAX_SIGNIN_CHECKS + 1)})


def test_failures_slow_a_name_down_doubling_up_to_a_cap():
    limiter = SignInLimiter(checks=2, per_address=100, per_minute=100)
    assert [limiter.failure_delay("Vera") for _ in range(6)] == [1, 2, 4, 8, 8, 8]
    assert limiter.failure_delay("someone else") == 1


def test_the_tables_forget_old_and_surplus_keys(monkeypatch):
    times = RecentTimes(window_s=10)
    times.add("old", now=0)
    times.add("new", now=100)
    assert len(times) == 1 and times.count("old", now=100) == 0  # older than the window: pruned
    monkeypatch.setattr(signin_limits, "MAX_TRACKED", 50)
    for n in range(200):
        times.add(f"k{n}", now=200)
    assert len(times) == 50 and times.count("k199", now=200) == 1 and times.count("k0", now=200) == 0


@pytest.mark.parametrize(("given", "kept"), [("cara", "cara"), ("x" * 1000, "x" * 64 + "…"),
                                              ("two\nlines", "two lines"), ("", "")])
def test_names_are_cut_short_for_the_logs(given, kept):
    assert shown_name(given) == kept
