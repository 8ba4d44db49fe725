"""The audit log is appended to and read back (a damaged line is counted, not hidden); roles nest."""

from __future__ import annotations

import pytest

from accounts.audit import AuditLog
from accounts.roles import ACTION_ROLES, ROLES, may


def test_records_are_appended_and_read_back_in_order(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record("ada", "user added", "cara role=curator")
    log.record("cara", "merged", "batch 1")
    before = (tmp_path / "audit.jsonl").read_text()
    log.record("ada", "undone", "batch 1")
    assert (tmp_path / "audit.jsonl").read_text().startswith(before)  # earlier lines untouched
    records, unreadable = log.records()
    assert [(r.actor, r.action) for r in records] == [("ada", "user added"), ("cara", "merged"), ("ada", "undone")]
    assert unreadable == 0


def test_a_line_cut_short_is_counted_as_unreadable(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record("ada", "user added", "x")
    with open(tmp_path / "audit.jsonl", "a") as out:
        out.write('{"at": "2026-12-01", "actor": "ad')
    records, unreadable = log.records()
    assert len(records) == 1 and unreadable == 1


@pytest.mark.parametrize(("role", "allowed"), [
    ("viewer", {"diagnose", "ask", "explore", "history"}),
    ("curator", {"diagnose", "ask", "explore", "history", "review", "merge", "approve"}),
    ("admin", set(ACTION_ROLES)),
    (None, set()), ("root", set()), ("Admin", set()),
])
def test_each_role_may_take_its_actions_and_those_of_the_roles_below(role, allowed):
    assert {action for action in ACTION_ROLES if may(role, action)} == allowed
    assert ROLES == ("viewer", "curator", "admin")
