"""The Curate tab: paste a case report, review the candidate facts, merge the accepted ones.

Extract (`/extract`, curators) -> a review table where each candidate can be ticked off (rejected) or
edited -> Merge (`/merge`, curators) writes them through the curated layer's one write path, with
the curator, the time and the PMID (or the text's hash; one of the two is required) -> a batch, which
an admin may undo (`/undo`, the batch id typed twice). With two-person review
(FPKG_CURATION_REVIEW=two) Merge only proposes the batch and another curator merges it (`/approve`).
The overlay can be exported (a private file, for its owner only) and imported (`/import_overlay`,
an uploaded file only). Roles are checked on the server for each endpoint; every merge, approval,
undo and import goes to the audit log, and so does every refusal.
"""

from __future__ import annotations

import gradio as gr

from app.access import Access, allow
from app.exports import uploaded_file
from app.gradio_bind import bind
from curation.extract import extract
from curation.facts import Fact
from curation.layer import checked_pmid, hpo_exclusions
from fpkg.errors import AccessDenied, InputError, LLMError, OverlayError, StoreError
from llm.base import GenerationRequest
from llm.prompts import facts_messages
from retrieval.intent import LABEL_TO_TYPE
from service.pipeline import Pipeline

REVIEW_HEADERS = ["accept", "head type", "head", "relation", "tail type", "tail", "sentence"]
REVIEW_TYPES = ["bool", "str", "str", "str", "str", "str", "str"]
BATCH_HEADERS = ["batch", "curator", "when (UTC)", "source", "facts", "state"]
MAX_IMPORT_BYTES = 5 * 2**20
AUDITED_MESSAGE = 300  # characters of a refusal's message kept in the audit log
SUGGESTION_TOKENS = 256
TRUE_WORDS = ("true", "yes", "1", "accept", "accepted", "x", "✓")


def _actor(identity) -> str:
    """Who a merge, undo or import is recorded as: the signed-in user; "python" for a call made in code."""
    return identity.name if identity and identity.name else "python"


def _refused(access: Access | None, request, action: str, e: Exception) -> gr.Error:
    """The refusal as a message to the user, written to the audit log first."""
    if isinstance(e, StoreError):
        error = gr.Error(f"The knowledge graph could not be written ({e}); nothing was changed.",
                         title="Graph store error")
    else:
        error = gr.Error(str(e), title="Please fix the input", print_exception=False)
    if access is not None:
        access.audit.record(access.who(request), f"{action} refused", str(e)[:AUDITED_MESSAGE])
    return error


def extract_facts(pipeline: Pipeline, access: Access, text: str, pmid: str, request: gr.Request = None) -> tuple:
    """(message, review rows) for the pasted text."""
    allow(access, request, "review")
    try:
        checked_pmid(pmid)
        found = extract(text, pipeline.linker, pipeline.recognizer)
    except InputError as e:
        raise _refused(access, request, "review", e) from e
    suggested = _suggest_with_llm(pipeline, text, found)
    rows = [[True, f.head_label, f.head, f.relation, f.tail_label, f.tail, f.sentence] for f in found.facts]
    lines = [f"{len(rows)} candidate facts. Untick a fact to reject it, edit a name to correct it, then "
             "merge the ticked ones." if rows else "No candidate fact.", *(f"- {n}" for n in found.notices),
             *([suggested] if suggested else []),
             *(f"- ⚠ {n}" for n in hpo_exclusions(pipeline.store, found.facts))]
    return "\n".join(lines), rows


def _suggest_with_llm(pipeline: Pipeline, text: str, found) -> str:
    """With an LLM configured, the facts it pairs among the names found are added to the candidates;
    a line saying what it added, or why it could not."""
    if pipeline.settings.llm_backend == "grounded" or not any(found.names().values()):
        return ""
    try:
        reply = pipeline.generator(None).generate(GenerationRequest(facts_messages(text, found.names()),
                                                                    max_new_tokens=SUGGESTION_TOKENS))
    except LLMError as e:
        return f"- The {pipeline.settings.llm_backend} LLM could not be asked ({e}): co-occurrence candidates only."
    added = found.add_suggested(reply)
    return f"- The {pipeline.settings.llm_backend} LLM suggested {added} more (at the end of the table)."


def accepted_facts(pipeline: Pipeline, rows) -> list[Fact]:
    """The ticked rows as facts, each name put as the graph spells it when it is an exact name or a
    synonym there (a curator may type "wide-set eyes" for Hypertelorism)."""
    rows = rows.values.tolist() if hasattr(rows, "values") else (rows or [])
    facts = []
    for number, row in enumerate(rows, 1):
        if len(row) != len(REVIEW_HEADERS):
            raise InputError(f"Row {number} has {len(row)} cells; a fact has {len(REVIEW_HEADERS)}: "
                             f"{', '.join(REVIEW_HEADERS)}.")
        accept, head_label, head, relation, tail_label, tail, sentence = (("" if c is None else c) for c in row)
        if accept is True or str(accept).strip().lower() in TRUE_WORDS:
            facts.append(Fact(str(head_label).strip(), _graph_name(pipeline, head_label, head), str(relation).strip(),
                              str(tail_label).strip(), _graph_name(pipeline, tail_label, tail), str(sentence)))
    return facts


def _graph_name(pipeline: Pipeline, label: object, name: object) -> str:
    name = " ".join(str(name).split())
    kind = LABEL_TO_TYPE.get(str(label).strip())
    if kind and name:
        link = pipeline.linker.link(name, kind)
        if link.node_id is not None and link.label == str(label).strip() and link.method in ("exact", "synonym"):
            return link.name or name
    return name


def merge_facts(pipeline: Pipeline, access: Access, rows, text: str, pmid: str, request: gr.Request = None) -> tuple:
    """(message, batches) after merging (or, with two-person review, proposing) the ticked rows as one batch."""
    curator = _actor(allow(access, request, "merge"))
    try:
        batch = pipeline.curated.merge(curator, accepted_facts(pipeline, rows), pmid, text or "")
    except (InputError, StoreError) as e:
        raise _refused(access, request, "merge", e) from e
    warnings = "".join(f"\n- ⚠ {n}" for n in hpo_exclusions(pipeline.store, list(batch.facts)))
    if pipeline.curated.review == "two":
        _record(access, curator, "proposed", f"batch {batch.batch}: {len(batch.facts)} facts, {batch.provenance()}")
        return (f"Proposed batch {batch.batch}: {len(batch.facts)} facts by {curator} ({batch.provenance()}). Another "
                "curator merges it (Approve)." + warnings), batch_rows(pipeline)
    _record(access, curator, "merged", f"batch {batch.batch}: {len(batch.facts)} facts, {batch.provenance()}")
    return (f"Merged batch {batch.batch}: {len(batch.facts)} facts by {curator} ({batch.provenance()}). Questions "
            "see them now (source `curated`); the differential uses them from the next start."
            + warnings), batch_rows(pipeline)


def approve_batch(pipeline: Pipeline, access: Access, number, request: gr.Request = None) -> tuple:
    """Two-person review: another curator's proposed batch merged."""
    approver = _actor(allow(access, request, "approve"))
    try:
        batch = pipeline.curated.approve(_batch_number(number), approver)
    except (InputError, StoreError) as e:
        raise _refused(access, request, "approve", e) from e
    _record(access, approver, "merged", f"batch {batch.batch}: {len(batch.facts)} facts by {batch.curator}, "
                                        f"{batch.provenance()}, approved")
    return (f"Merged batch {batch.batch}: {len(batch.facts)} facts by {batch.curator}, approved by {approver}."),\
        batch_rows(pipeline)


def undo_batch(pipeline: Pipeline, access: Access, number, confirm, request: gr.Request = None) -> tuple:
    """An admin's undo of one batch, named exactly and confirmed by typing its id again."""
    by = _actor(allow(access, request, "undo"))
    try:
        batch_number = _batch_number(number)
        if str(confirm if confirm is not None else "").strip() != str(batch_number):
            raise InputError(f"To undo {_described(pipeline, batch_number)}, type {batch_number} again under "
                             "Confirm: nothing was undone.")
        batch = pipeline.curated.undo(batch_number, by)
    except (InputError, StoreError) as e:
        raise _refused(access, request, "undo", e) from e
    _record(access, by, "undone", f"batch {batch.batch} ({len(batch.facts)} facts by {batch.curator})")
    return f"Batch {batch.batch} undone: its {len(batch.facts)} facts are out of the graph.", batch_rows(pipeline)


def _record(access: Access | None, actor: str, action: str, detail: str) -> None:
    if access is not None:
        access.audit.record(actor, action, detail)


def _batch_number(number: object) -> int:
    """A batch id exactly as typed: whole digits (an API's integer too), never rounded."""
    text = str(number).strip() if isinstance(number, (str, int)) and not isinstance(number, bool) else ""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InputError(f"{str(number)[:20]!r} is not a batch id: type the number from the table, e.g. 3.")
    return int(text)


def _described(pipeline: Pipeline, number: int) -> str:
    batch = pipeline.curated.state().batches.get(number)
    return f"batch {number} ({len(batch.facts)} facts by {batch.curator}, {batch.provenance()})" if batch \
        else f"batch {number}"


def _batch_state(state, batch) -> str:
    if batch.batch in state.undone:
        verb = "declined" if batch.batch not in state.batches else "undone"
        return f"{verb} by {state.undone[batch.batch]}"
    if batch.batch not in state.batches:
        return "proposed: waiting for another curator"
    merged = state.batches[batch.batch]
    return f"in the graph (approved by {merged.approved_by})" if merged.approved_by else "in the graph"


def batch_rows(pipeline: Pipeline) -> list[list]:
    try:
        state = pipeline.curated.state()
    except InputError:
        return []
    batches = state.proposed | state.batches
    return [[b.batch, b.curator, b.at.replace("T", " ")[:19], b.provenance(), len(b.facts), _batch_state(state, b)]
            for b in sorted(batches.values(), key=lambda b: -b.batch)]


def batch_view(pipeline: Pipeline, access: Access, request: gr.Request = None) -> tuple:
    """When the page loads: the batches, for curators (others see none, and no error)."""
    try:
        access.require(request, "review")
    except AccessDenied:
        return "", []
    problem = pipeline.curated.problem
    return (f"**Curated facts are switched off**: {problem}" if problem else ""), batch_rows(pipeline)


def export_overlay(pipeline: Pipeline, access: Access, request: gr.Request = None) -> str:
    """The overlay as a private file: for the one who asked, for a few minutes."""
    identity = allow(access, request, "review")
    try:
        text = pipeline.curated.export_text()
    except InputError as e:
        raise _refused(access, request, "review", e) from e
    return str(access.exports.write(identity.name if identity else None, "curated-overlay", ".jsonl", text))


def import_overlay(pipeline: Pipeline, access: Access, file, request: gr.Request = None) -> tuple:
    curator = _actor(allow(access, request, "merge"))
    proposed = pipeline.curated.review == "two"
    try:
        if not file:
            raise InputError("Choose an exported overlay file (.jsonl) to import.")
        path = uploaded_file(file, access.exports)
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise InputError(f"The file is {path.stat().st_size:,} bytes; an overlay export up to "
                             f"{MAX_IMPORT_BYTES:,} is accepted.")
        batches = pipeline.curated.import_text(path.read_text(encoding="utf-8", errors="replace"), curator)
    except OverlayError as e:
        raise _refused(access, request, "import", InputError(f"The file cannot be imported: {e}")) from e
    except (InputError, StoreError) as e:
        raise _refused(access, request, "import", e) from e
    facts = sum(len(b.facts) for b in batches)
    _record(access, curator, "imported", f"batches {', '.join(str(b.batch) for b in batches)}: {facts} facts"
                                         + (", proposed" if proposed else ""))
    return (f"Imported {len(batches)} batches ({facts} facts) as batches {batches[0].batch}-{batches[-1].batch}"
            + (", proposed: another curator merges them (Approve)." if proposed else ".")), batch_rows(pipeline)


def build_tab(pipeline: Pipeline, access: Access) -> gr.Markdown:
    """The tab's components and endpoints; returns the batches' message (filled when the page loads)."""
    two = pipeline.curated.review == "two"
    gr.Markdown("Curators add facts from a case report or an abstract: extract candidates, review them, merge. "
                "Facts link nodes the graph already holds; each batch keeps its curator, time and source (a PMID, "
                "or the pasted text). " + ("Two-person review: a batch one curator merges is proposed, and "
                                           "another curator approves it. " if two else "")
                + "Admins may undo a batch (type its id twice).")
    with gr.Row():
        with gr.Column(scale=3):
            text = gr.Textbox(label="Case report or abstract", lines=6, elem_id="curate-text")
        with gr.Column(scale=1):
            pmid = gr.Textbox(label="PMID (optional)", placeholder="e.g. 26551301", elem_id="curate-pmid")
            extract_button = gr.Button("Extract facts", variant="primary", elem_id="curate-extract")
    message = gr.Markdown("", elem_id="curate-message")
    review = gr.Dataframe(headers=REVIEW_HEADERS, datatype=REVIEW_TYPES, type="array", interactive=True, wrap=True,
                          label="Candidate facts (tick to accept; names and types can be edited)",
                          elem_id="curate-review", column_widths=["7%", "11%", "17%", "8%", "11%", "17%", "29%"])
    merge_button = gr.Button("Merge accepted facts", variant="primary", elem_id="curate-merge")
    batches = gr.Dataframe(headers=BATCH_HEADERS, label="Curated batches", interactive=False,
                           elem_id="curate-batches", max_height=300)
    with gr.Row():
        number = gr.Textbox(label="Batch id", placeholder="e.g. 3", elem_id="curate-batch")
        confirm = gr.Textbox(label="Confirm (the id again, to undo)", elem_id="curate-confirm")
        approve_button = gr.Button("Approve batch", elem_id="curate-approve", visible=two)
        undo_button = gr.Button("Undo batch (admins)", variant="stop", elem_id="curate-undo")
        export_button = gr.Button("Export overlay", elem_id="curate-export")
        upload = gr.File(label="Import an exported overlay", file_types=[".jsonl"], elem_id="curate-upload")
        import_button = gr.Button("Import", elem_id="curate-import")
    download = gr.File(label="Overlay export", elem_id="curate-download")
    extract_button.click(bind(extract_facts, pipeline, access), [text, pmid], [message, review], api_name="extract",
                         concurrency_id="pipeline")
    merge_button.click(bind(merge_facts, pipeline, access), [review, text, pmid], [message, batches],
                       api_name="merge", concurrency_id="pipeline")
    undo_button.click(bind(undo_batch, pipeline, access), [number, confirm], [message, batches], api_name="undo",
                      concurrency_id="pipeline")
    approve_button.click(bind(approve_batch, pipeline, access), [number], [message, batches], api_name="approve",
                         concurrency_id="pipeline")
    export_button.click(bind(export_overlay, pipeline, access), None, download, api_name="export_overlay")
    import_button.click(bind(import_overlay, pipeline, access), [upload], [message, batches],
                        api_name="import_overlay", concurrency_id="pipeline")
    return message, batches
