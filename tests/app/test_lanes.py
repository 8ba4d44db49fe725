"""Request lanes (app/lanes.py): grounded answers and LLM answers wait apart; an LLM lane that is full
refuses at once with a Busy message, and a waiting answer is told its place in the queue. Threads are
ordered with events, never with sleeps."""

from __future__ import annotations

import threading

import gradio as gr
import pytest

from app.lanes import GROUNDED_RUNNING, LLM_RUNNING, LLM_WAITING, WORKERS, Lane, Lanes, ordinal
from app.ui import ask, diagnose
from fpkg.errors import Busy, FpkgError

CHD7 = dict(age="5", sex="female", ethnicity="", gene="CHD7", variant="c.2443-2A>G",
            phenotypes=["Wide nasal bridge", "Chorioretinal coloboma"], selective=False, option_a="", option_b="",
            option_c="", option_d="")


def test_the_numbers_leave_grounded_answers_their_workers():
    assert WORKERS == GROUNDED_RUNNING + LLM_RUNNING + LLM_WAITING
    assert WORKERS - (LLM_RUNNING + LLM_WAITING) >= GROUNDED_RUNNING >= 1
    assert issubclass(Busy, FpkgError)


@pytest.mark.parametrize(("n", "said"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"),
                                         (12, "12th"), (13, "13th"), (21, "21st"), (102, "102nd")])
def test_ordinals(n, said):
    assert ordinal(n) == said


def test_a_lane_admits_up_to_its_limit_then_queues_in_order_then_refuses():
    lane = Lane("LLM", running=1, waiting=2)
    first = lane.admit()
    assert first.admitted and lane.state() == (1, 0)
    second, third = lane.admit(), lane.admit()
    assert not second.admitted and second.wait(0) == 1 and third.wait(0) == 2
    with pytest.raises(Busy, match="1 LLM answer\\(s\\) are being written and 2 are waiting"):
        lane.admit()
    first.release()
    assert second.wait(0) == 0 and second.admitted  # the next in line starts
    assert third.wait(0) == 1  # and the one behind it moves up
    third.release()  # gave up waiting: its place goes
    assert lane.state() == (1, 0)
    second.release()
    second.release()  # a second release changes nothing
    assert lane.state() == (0, 0)


def test_a_waiting_answer_starts_as_soon_as_a_place_is_free():
    lane = Lane("grounded", running=1)
    holder = lane.admit()
    waiter = lane.admit()
    started = threading.Event()

    def wait_for_place() -> None:
        while waiter.wait(60):
            pass
        started.set()

    thread = threading.Thread(target=wait_for_place)
    thread.start()
    assert not started.is_set()
    holder.release()
    thread.join(60)
    assert started.is_set() and lane.state() == (1, 0)
    waiter.release()


def test_the_grounded_lane_has_no_bound_of_its_own():
    lane = Lanes().grounded
    tickets = [lane.admit() for _ in range(40)]  # Gradio's queue bounds how many arrive
    assert sum(t.admitted for t in tickets) == GROUNDED_RUNNING
    for ticket in tickets:
        ticket.release()


def test_backends_choose_their_lane():
    lanes = Lanes()
    assert lanes.for_backend("grounded") is lanes.grounded
    assert lanes.for_backend("endpoint") is lanes.llm and lanes.for_backend("local") is lanes.llm


def test_a_full_llm_lane_refuses_llm_answers_and_grounded_ones_still_come(pipeline):
    lanes = Lanes()
    held = [lanes.llm.admit() for _ in range(LLM_RUNNING + LLM_WAITING)]  # slow LLM answers, running and waiting
    with pytest.raises(gr.Error, match="Busy: .*try again in a minute") as refused:
        list(ask(pipeline, "Which genes cause CHARGE syndrome?", "cypher", "endpoint", 0.0, lanes=lanes))
    assert refused.value.title == "Busy"
    outputs = list(diagnose(pipeline, *CHD7.values(), "cypher", "grounded", 0.0, lanes=lanes))
    assert len(outputs) == 1  # a grounded answer is sent once, whole
    assert outputs[0][0].startswith("Most likely: CHARGE syndrome") and outputs[0][5]
    for ticket in held:
        ticket.release()
    assert lanes.llm.state() == lanes.grounded.state() == (0, 0)


def test_an_answer_waiting_for_its_place_is_told_where_it_stands(pipeline):
    lanes = Lanes()
    running = [lanes.grounded.admit() for _ in range(GROUNDED_RUNNING)]
    answers = ask(pipeline, "Which genes cause CHARGE syndrome?", "cypher", "grounded", 0.0, lanes=lanes)
    told = next(answers)  # waits a second for a place, then says where it stands
    assert told[0].startswith("_Busy: you are 1st in the queue (grounded answers)")
    assert all(output == gr.skip() for output in told[1:])  # the rest of the panel stays as it is
    for ticket in running:
        ticket.release()
    rest = list(answers)
    assert "CHD7" in rest[-1][0] and lanes.grounded.state() == (0, 0)
