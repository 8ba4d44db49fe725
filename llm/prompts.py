"""Chat messages for diagnosis (vanilla and RAG), free questions over graph evidence, and text-to-Cypher.

Every builder returns `list[{"role", "content"}]` for a `GenerationRequest`. The prompts are short on
purpose: small instruct models follow short instructions better, and the replies are parsed back by
`llm.parse`, so each prompt asks for a reply shape that the parser expects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# The exact sentence the RAG prompts ask for when the evidence is silent; llm.parse recognises it.
NO_EVIDENCE_REPLY = "The knowledge graph has no evidence for this."

VANILLA_SYSTEM = (
    "You are a clinical geneticist. Read the patient description and name the single most likely "
    "genetic disease. If answer options are given, choose exactly one and reply with its letter and "
    "name, e.g. 'B. Noonan syndrome'. Otherwise reply with the disease name only. No explanation."
)

RAG_SYSTEM = (
    "You are a clinical geneticist. Answer only from the numbered evidence, which comes from a "
    "knowledge graph of facial phenotypes, genes, variants, published patients and rare diseases; do "
    "not use outside knowledge. Name the single most likely disease. If answer options are given, "
    "choose exactly one and reply with its letter and name, e.g. 'B. Noonan syndrome'. Otherwise reply "
    "with the disease name first, then at most two sentences citing evidence numbers like [1]. "
    f"If the evidence says nothing about the case, reply exactly: {NO_EVIDENCE_REPLY}"
)

ASK_SYSTEM = (
    "You answer questions about rare genetic diseases, genes and facial phenotypes only from the "
    "numbered evidence, which comes from a knowledge graph; do not use outside knowledge. Be brief and "
    "cite evidence numbers like [2]. If the evidence does not answer the question, reply exactly: "
    f"{NO_EVIDENCE_REPLY}"
)

CYPHER_SYSTEM = (
    "You translate questions into Cypher for a knowledge graph of facial phenotypes, diseases and genes "
    "(its schema follows, when given). Reply with exactly one read-only "
    "query (MATCH, OPTIONAL MATCH, WITH, WHERE, RETURN, ORDER BY, LIMIT) and nothing else: no "
    "explanation, no code fence. Never create, merge, set, delete or remove anything. Use only the "
    "labels, relationship types and properties of the schema; match names case-insensitively with "
    "toLower(); return at most 50 rows."
)


def format_options(options: Mapping[str, str] | None) -> str:
    """'A. Noonan syndrome' lines, one per option; empty when there are no options."""
    if not options:
        return ""
    return "\n".join(f"{letter}. {name}" for letter, name in options.items())


# About 1,500 tokens of evidence (~4 characters a token): with the instructions and a 512-token reply it
# fits a 4,096-token context window (the GGUF models' here) with room to spare.
EVIDENCE_CHARS = 6000


def format_evidence(evidence: Sequence[str], max_chars: int = EVIDENCE_CHARS) -> str:
    """Numbered evidence lines ('1. ...'), each once, best first, as many as fit `max_chars`;
    '(none)' when the retrieval found nothing."""
    lines = list(dict.fromkeys(line.strip() for line in evidence if line and line.strip()))
    if not lines:
        return "(none)"
    numbered, used = [], 0
    for i, line in enumerate(lines, start=1):
        text = f"{i}. {line}"
        if numbered and used + len(text) + 1 > max_chars:
            numbered.append(f"({len(lines) - i + 1} more lines left out to fit the model's context)")
            break
        numbered.append(text)
        used += len(text) + 1
    return "\n".join(numbered)


def _with_options(question: str, options: Mapping[str, str] | None) -> str:
    question = question.strip()
    listed = format_options(options)
    return f"{question}\n\nOptions:\n{listed}" if listed else question


def vanilla_diagnosis_messages(
    question: str, options: Mapping[str, str] | None = None
) -> list[dict[str, str]]:
    """The paper's baseline: the question as given, no retrieval. Pass `options` only if the question
    text does not already list them."""
    return [
        {"role": "system", "content": VANILLA_SYSTEM},
        {"role": "user", "content": _with_options(question, options)},
    ]


def rag_diagnosis_messages(
    question: str, evidence: Sequence[str], options: Mapping[str, str] | None = None,
    max_chars: int = EVIDENCE_CHARS,
) -> list[dict[str, str]]:
    """Diagnosis from the question plus numbered graph evidence (best evidence first)."""
    content = f"{_with_options(question, options)}\n\nEvidence:\n{format_evidence(evidence, max_chars)}"
    return [{"role": "system", "content": RAG_SYSTEM}, {"role": "user", "content": content}]


def ask_messages(question: str, evidence: Sequence[str], max_chars: int = EVIDENCE_CHARS) -> list[dict[str, str]]:
    """A free question answered from numbered graph evidence."""
    content = f"Question: {question.strip()}\n\nEvidence:\n{format_evidence(evidence, max_chars)}"
    return [{"role": "system", "content": ASK_SYSTEM}, {"role": "user", "content": content}]


def cypher_messages(
    question: str,
    schema: str,
    examples: Sequence[tuple[str, str]] = (),
    previous_query: str | None = None,
    error: str | None = None,
) -> list[dict[str, str]]:
    """Text-to-Cypher: schema in the system prompt, few-shot (question, cypher) pairs as earlier turns,
    then the question. With `previous_query` and `error` it becomes a repair round."""
    system = CYPHER_SYSTEM + (f"\n\nSchema:\n{schema.strip()}" if schema.strip() else "")
    messages = [{"role": "system", "content": system}]
    for example_question, example_cypher in examples:
        messages.append({"role": "user", "content": example_question.strip()})
        messages.append({"role": "assistant", "content": example_cypher.strip()})
    content = question.strip()
    if previous_query:
        content += (
            f"\n\nYour previous query was:\n{previous_query.strip()}\n"
            f"It failed with: {(error or 'an unknown error').strip()}\n"
            "Reply with a corrected query only."
        )
    messages.append({"role": "user", "content": content})
    return messages


FACTS_SYSTEM = (
    "You read a clinical case report and list the facts it states, for a knowledge graph of rare "
    "diseases with facial features. Use only the names given, exactly as written there. One fact per "
    "line, as `head | relation | tail`, with relation one of: Exhibit (a disease shows a facial "
    "phenotype), Cause (a gene causes a disease), Affect (a gene affects a facial phenotype). Leave out "
    "findings the text says are absent. Reply with the lines only."
)


def facts_messages(text: str, names: dict[str, Sequence[str]]) -> list[dict[str, str]]:
    """Curated growth: the report and the graph names found in it, for the LLM to pair as facts."""
    listed = "\n".join(f"{kind}: {'; '.join(found)}" for kind, found in names.items() if found)
    content = f"Names:\n{listed}\n\nReport:\n{text.strip()}"
    return [{"role": "system", "content": FACTS_SYSTEM}, {"role": "user", "content": content}]
