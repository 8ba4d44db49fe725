"""History: the SQLite store (per user, parameterised, retention, a cap), exports, browser entries."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from accounts import history
from accounts.history import Entry, HistoryStore, as_csv, as_json, browser_entries, new_entry

SQL_LOOKING = "'); DROP TABLE history; -- and \" OR 1=1; SELECT * FROM history WHERE user = 'x"


@pytest.fixture
def store(tmp_path) -> HistoryStore:
    return HistoryStore(tmp_path / "history.sqlite3", retention_days=30)


def test_entries_are_kept_per_user_newest_first(store):
    first = store.add("alice", "ask", {"question": "What causes CHARGE syndrome?"}, "CHD7")
    second = store.add("alice", "diagnose", {"gene": "FGFR2", "phenotypes": ["Proptosis"]}, "Crouzon syndrome")
    store.add("bob", "ask", {"question": "bob's"}, "x")
    assert [e.id for e in store.entries("alice")] == [second.id, first.id]
    assert store.entries("alice")[0].inputs == {"gene": "FGFR2", "phenotypes": ["Proptosis"]}
    assert [e.summary for e in store.entries("bob")] == ["x"]


def test_delete_one_and_all_touch_only_that_user(store):
    kept = store.add("bob", "ask", {"question": "q"}, "a")
    entry = store.add("alice", "ask", {"question": "q"}, "a")
    store.add("alice", "ask", {"question": "q2"}, "b")
    assert not store.delete("alice", kept.id)  # bob's entry, asked for by alice
    assert store.delete("alice", entry.id)
    assert len(store.entries("alice")) == 1
    assert store.delete_all("alice") == 1
    assert store.entries("alice") == [] and [e.id for e in store.entries("bob")] == [kept.id]


def test_sql_looking_text_is_stored_as_text(store, tmp_path):
    store.add(SQL_LOOKING, "ask", {"question": SQL_LOOKING}, SQL_LOOKING)
    store.add("alice", "ask", {"question": "q"}, "a")
    [entry] = store.entries(SQL_LOOKING)
    assert entry.inputs["question"] == SQL_LOOKING and entry.summary == SQL_LOOKING
    assert len(store.entries("alice")) == 1
    tables = sqlite3.connect(tmp_path / "history.sqlite3").execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'history'").fetchall()
    assert tables == [("history",)]


def test_entries_older_than_the_retention_period_are_deleted(store):
    store.add("alice", "ask", {"question": "q"}, "a")
    assert store.purge(datetime.now(UTC) + timedelta(days=29)) == 0
    assert store.purge(datetime.now(UTC) + timedelta(days=31)) == 1
    assert store.entries("alice") == []


def test_a_user_keeps_at_most_the_newest_entries(store, monkeypatch):
    monkeypatch.setattr(history, "MAX_ENTRIES", 3)
    for n in range(5):
        store.add("alice", "ask", {"question": f"q{n}"}, f"a{n}")
    assert [e.summary for e in store.entries("alice")] == ["a4", "a3", "a2"]


def test_exports_read_back(store):
    store.add("alice", "diagnose", {"gene": "CHD7", "phenotypes": ["Ptosis", "Coloboma"]}, "CHARGE, \"quoted\"")
    store.add("alice", "ask", {"question": SQL_LOOKING}, "line one")
    entries = store.entries("alice")
    assert [Entry.from_dict(item) for item in json.loads(as_json(entries))] == entries
    rows = list(csv.DictReader(io.StringIO(as_csv(entries))))
    assert [row["summary"] for row in rows] == ["line one", "CHARGE, \"quoted\""]
    assert json.loads(rows[1]["inputs"])["phenotypes"] == ["Ptosis", "Coloboma"]


def test_the_browsers_list_is_read_back_skipping_what_is_not_an_entry():
    good = new_entry(2, "ask", {"question": "q"}, "  an   answer  ").as_dict()
    older = new_entry(1, "diagnose", {"gene": "CHD7"}, "b").as_dict()
    stored = [older, good, {"id": "x"}, "text", None, {**good, "kind": "drop table"}, {**good, "inputs": 3}]
    assert [e.id for e in browser_entries(stored)] == [2, 1]
    assert browser_entries(stored)[0].summary == "an answer"
    assert browser_entries("not a list") == [] and browser_entries(None) == []
