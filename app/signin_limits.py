"""How much sign-in work one process accepts: password checks that cannot be flooded.

Each password check is an Argon2id hash (64 MiB, about a quarter of a second of CPU): fifty at once
take gigabytes. So, before a check runs:
- a name with an attempt still running (or waiting out its failure delay) is refused, not checked
  again in parallel;
- an address with too many failed or running attempts in the last minute is refused, and so is every
  address once the whole process has had too many;
- at most `checks` passwords are checked at a time (their memory together stays under
  MAX_CHECKS_MEMORY_MB); an attempt that finds them all busy is refused at once rather than queued, so a
  flood holds no request, and no memory, waiting.
A refusal says how long to wait (HTTP 429, Retry-After). A successful sign-in does not count against
its address. Failed attempts slow the name down (1, 2, 4, 8 s). Every table here is pruned: names and
addresses seen once are forgotten after the window.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

WINDOW_S = 60.0  # the per-address and global limits count attempts in this window
FAILURE_WINDOW_S = 900.0  # failures older than this no longer slow a name down
FIRST_DELAY_S = 1.0
MAX_DELAY_S = 8.0
MAX_TRACKED = 10_000  # names (or addresses) remembered at most; the oldest go first
SHOWN_NAME = 64  # the longest valid user name; longer text is cut in logs
MAX_CHECKS_MEMORY_MB = 300  # password checks at once, times each one's memory, stay under this
BUSY_RETRY_S = 1  # a check takes a fraction of a second: a slot is free again by then


@dataclass(frozen=True)
class Refusal:
    reason: str
    retry_after_s: int
    first_for_address: bool  # the first refusal for this address in the window (audited once)


def shown_name(name: str) -> str:
    """A caller-chosen name as the logs keep it: at most SHOWN_NAME characters."""
    name = " ".join((name or "").split())
    return name if len(name) <= SHOWN_NAME else name[:SHOWN_NAME] + "…"


class RecentTimes:
    """Times per key within a window, oldest keys first, with at most MAX_TRACKED keys."""

    def __init__(self, window_s: float):
        self.window_s = window_s
        self._times: OrderedDict[str, deque[float]] = OrderedDict()

    def count(self, key: str, now: float) -> int:
        times = self._times.get(key)
        if times is None:
            return 0
        while times and now - times[0] > self.window_s:
            times.popleft()
        if not times:
            del self._times[key]
            return 0
        return len(times)

    def oldest(self, key: str) -> float | None:
        times = self._times.get(key)
        return times[0] if times else None

    def add(self, key: str, now: float) -> int:
        """Records one more at `now`; how many the key has in the window."""
        count = self.count(key, now) + 1
        self._times.setdefault(key, deque()).append(now)
        self._times.move_to_end(key)
        self._prune(now)
        return count

    def remove_last(self, key: str) -> None:
        times = self._times.get(key)
        if times:
            times.pop()
            if not times:
                del self._times[key]

    def _prune(self, now: float) -> None:
        while self._times:
            key, times = next(iter(self._times.items()))
            if len(self._times) <= MAX_TRACKED and now - times[-1] <= self.window_s:
                break
            del self._times[key]

    def __len__(self) -> int:
        return len(self._times)


class SignInLimiter:
    """One per server process; used from the event loop only (no lock needed)."""

    def __init__(self, checks: int, per_address: int, per_minute: int):
        self.per_address, self.per_minute = per_address, per_minute
        self._checks = asyncio.Semaphore(checks)  # never waited on: `admit` refuses when none is free
        self._by_address = RecentTimes(WINDOW_S)
        self._everyone = RecentTimes(WINDOW_S)
        self._failures = RecentTimes(FAILURE_WINDOW_S)  # per name, for the delay
        self._refused = RecentTimes(WINDOW_S)  # per kind and address: audit the first refusal only
        self._busy_names: set[str] = set()

    def admit(self, name: str, address: str) -> Refusal | None:
        """A Refusal, or None: the attempt may go on (call `release` when it is answered)."""
        now = time.monotonic()
        key = name.lower()
        refusal = self._refusal(key, address, now)
        if refusal is None:
            self._busy_names.add(key)
            self._by_address.add(address, now)
            self._everyone.add("", now)
        return refusal

    def release(self, name: str) -> None:
        self._busy_names.discard(name.lower())

    @asynccontextmanager
    async def checked(self) -> AsyncIterator[None]:
        """One of the `checks` password-check slots, free when `admit` let the attempt in: entered with
        no await between the two, it is taken at once (the event loop runs one request at a time)."""
        async with self._checks:
            yield

    def succeeded(self, address: str) -> None:
        """A right password: the attempt no longer counts against its address."""
        self._by_address.remove_last(address)
        self._everyone.remove_last("")

    def failure_delay(self, name: str) -> float:
        """Records a failed attempt on `name`; how long to wait before answering it."""
        count = self._failures.add(name.lower(), time.monotonic())
        return min(FIRST_DELAY_S * 2 ** (count - 1), MAX_DELAY_S)

    def _refusal(self, key: str, address: str, now: float) -> Refusal | None:
        if key in self._busy_names:
            reason, wait = "another sign-in for this name is still being checked", MAX_DELAY_S
        elif self._by_address.count(address, now) >= self.per_address:
            reason, wait = "too many sign-in attempts from this address", self._wait(self._by_address, address, now)
        elif self._everyone.count("", now) >= self.per_minute:
            reason, wait = "too many sign-in attempts at the moment", self._wait(self._everyone, "", now)
        elif self._checks.locked():
            reason, wait = "every password check is busy at the moment", BUSY_RETRY_S
        else:
            return None
        return Refusal(reason, max(1, math.ceil(wait)), self.first_refusal(address, "limit"))

    def first_refusal(self, address: str, kind: str) -> bool:
        """Records a refusal of `kind` for `address`; whether it is the first in the window (the audit
        log keeps one line per address, kind and window, not one per request of a flood)."""
        now, key = time.monotonic(), f"{kind} {address}"
        first = self._refused.count(key, now) == 0
        self._refused.add(key, now)
        return first

    @staticmethod
    def _wait(times: RecentTimes, key: str, now: float) -> float:
        oldest = times.oldest(key)
        return WINDOW_S - (now - oldest) if oldest is not None else WINDOW_S
