"""Request lanes: grounded answers and LLM answers wait in lanes of their own.

Gradio's queue runs at most `WORKERS` answers at once (one concurrency group for `/diagnose` and
`/ask`); inside it, each answer takes a place in its lane before it starts:

- grounded answers (the graph's own writer): `GROUNDED_RUNNING` at once, the others waiting in
  Gradio's queue and then in the lane (never refused: Gradio's queue bounds them);
- LLM answers (a local model or an endpoint): `LLM_RUNNING` at once and `LLM_WAITING` waiting; one
  more is refused at once with `Busy` ("try again shortly, or use the grounded backend").

So LLM answers hold at most LLM_RUNNING + LLM_WAITING of the WORKERS, and grounded answers always
have GROUNDED_RUNNING: a slow LLM (seconds to minutes on a CPU) never blocks a grounded answer. A
waiting answer is told its place ("busy, you are 2nd in the queue") until it starts.

The numbers were chosen by measurement on two cores (docs/scaling.md): a grounded answer is CPU-bound
(about 30 ms of server CPU), so two at once keep both cores busy, and more only add latency; an LLM
on CPU takes every core it is given, so one at a time.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from fpkg.errors import Busy

GROUNDED_RUNNING = 2
LLM_RUNNING = 1
LLM_WAITING = 2
WORKERS = GROUNDED_RUNNING + LLM_RUNNING + LLM_WAITING


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(eq=False)
class Ticket:
    """One answer's place in a lane: admitted (running), or waiting at a position."""

    lane: Lane
    admitted: bool = False
    left: bool = False

    def wait(self, timeout_s: float) -> int:
        """0 once admitted; else, after at most `timeout_s`, the place in the queue (1 = next)."""
        return self.lane._wait(self, timeout_s)

    def release(self) -> None:
        self.lane._release(self)


@dataclass(eq=False)
class Lane:
    name: str
    running: int
    waiting: int | None = None  # None: no bound here (Gradio's queue bounds it)
    _busy: int = 0
    _queue: deque[Ticket] = field(default_factory=deque)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def admit(self) -> Ticket:
        """A ticket, admitted at once when there is room and nobody waits; raises Busy when every
        waiting place is taken."""
        with self._changed:
            ticket = Ticket(self)
            if self._busy < self.running and not self._queue:
                self._busy += 1
                ticket.admitted = True
                return ticket
            if self.waiting is not None and len(self._queue) >= self.waiting:
                raise Busy(f"{self.running} {self.name} answer(s) are being written and {len(self._queue)} are "
                           "waiting: please try again in a minute")
            self._queue.append(ticket)
            return ticket

    def _wait(self, ticket: Ticket, timeout_s: float) -> int:
        with self._changed:
            if not ticket.admitted:
                self._changed.wait_for(lambda: self._may_start(ticket), timeout=timeout_s)
                if self._may_start(ticket):
                    self._queue.popleft()
                    self._busy += 1
                    ticket.admitted = True
                    self._changed.notify_all()
            return 0 if ticket.admitted else self._queue.index(ticket) + 1

    def _may_start(self, ticket: Ticket) -> bool:
        return bool(self._queue) and self._queue[0] is ticket and self._busy < self.running

    def _release(self, ticket: Ticket) -> None:
        with self._changed:
            if ticket.left:
                return
            ticket.left = True
            if ticket.admitted:
                self._busy -= 1
            else:
                self._queue.remove(ticket)
            self._changed.notify_all()

    def state(self) -> tuple[int, int]:
        """(running, waiting) now."""
        with self._changed:
            return self._busy, len(self._queue)


@dataclass
class Lanes:
    grounded: Lane = field(default_factory=lambda: Lane("grounded", GROUNDED_RUNNING))
    llm: Lane = field(default_factory=lambda: Lane("LLM", LLM_RUNNING, LLM_WAITING))

    def for_backend(self, backend: str | None) -> Lane:
        return self.grounded if (backend or "grounded") == "grounded" else self.llm
