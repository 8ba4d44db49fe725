"""Private exports and the files handlers may read (app/exports.py), on a real folder: owner-only
files, fetched by their owner only and only until they expire; nothing read outside Gradio's upload
folder or the export area, whatever path the request names."""

from __future__ import annotations

import json
import time

import pytest

from app.exports import PrivateExports, is_private_export, uploaded_file
from fpkg.errors import InputError


@pytest.fixture
def exports(tmp_path) -> PrivateExports:
    return PrivateExports(tmp_path / "state" / "exports", max_age_s=600)


@pytest.fixture
def upload_folder(tmp_path, monkeypatch):
    folder = tmp_path / "gradio-uploads"
    folder.mkdir()
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(folder))
    return folder


def test_an_export_is_owner_only_on_disk_and_to_fetch(exports):
    path = exports.write("cara", "history", ".json", '[{"id": 1}]')
    assert path.read_text() == '[{"id": 1}]' and is_private_export(path.name)
    assert path.stat().st_mode & 0o777 == 0o600
    for folder in (exports.root, exports.files, exports.owners, path.parent):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    assert (exports.owners / f"{path.parent.name}.json").stat().st_mode & 0o777 == 0o600
    assert exports.may_fetch(path.name, "cara") is True
    assert exports.may_fetch(path.name, "vera") is False and exports.may_fetch(path.name, None) is False
    forged = path.name.replace(path.name[-40:-8], "0" * 32)  # a token of no export
    assert exports.may_fetch(forged, "cara") is False


def test_an_export_for_someone_not_signed_in_is_fetched_by_its_unguessable_name(exports):
    path = exports.write(None, "history", ".csv", "id,at\n")
    other = exports.write(None, "history", ".csv", "id,at\n")
    assert path.name != other.name and exports.may_fetch(path.name, None) and exports.may_fetch(path.name, "ada")


def test_an_expired_export_is_refused_and_removed_with_gradios_copy(exports, upload_folder):
    path = exports.write("cara", "curated-overlay", ".jsonl", "{}\n")
    copy = upload_folder / "0123abcd" / path.name  # where Gradio keeps the copy it serves
    copy.parent.mkdir()
    copy.write_text("{}\n")
    kept = exports.write("cara", "history", ".json", "[]")
    record = exports.owners / f"{path.parent.name}.json"
    record.write_text(json.dumps(json.loads(record.read_text()) | {"at": time.time() - 601}))  # 10 minutes on
    assert exports.may_fetch(path.name, "cara") is False
    assert not path.exists() and not copy.exists()
    assert exports.sweep() == 0 and exports.may_fetch(kept.name, "cara")


def test_a_handler_reads_only_uploaded_files(exports, upload_folder, tmp_path):
    uploaded = upload_folder / "abc123" / "overlay.jsonl"
    uploaded.parent.mkdir()
    uploaded.write_text("{}\n")
    assert uploaded_file(str(uploaded), exports) == uploaded.resolve()
    exported = exports.write("cara", "curated-overlay", ".jsonl", "{}\n")
    assert uploaded_file(str(exported), exports) == exported.resolve()
    state_file = tmp_path / "state" / "curated-overlay.jsonl"
    state_file.write_text("{}\n")
    escape = upload_folder / "abc123" / "link.jsonl"
    escape.symlink_to(state_file)
    for path in (state_file, "/etc/passwd", escape, upload_folder / ".." / "state" / "curated-overlay.jsonl",
                 upload_folder, ""):
        with pytest.raises(InputError) as refused:
            uploaded_file(str(path), exports)
        assert str(tmp_path) not in str(refused.value) and "/etc" not in str(refused.value)
