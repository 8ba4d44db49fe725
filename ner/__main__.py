"""``python -m ner train|evaluate|predict|audit``; errors are printed as messages."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

from fpkg.cli import reports_errors
from fpkg.config import Settings
from fpkg.errors import NerError
from ner.corpus import SPLITS, corpus_path, read_conll


@reports_errors()
def main(argv: list[str] | None = None) -> int:
    # OpenMP threads that sleep instead of spinning while they wait: on a shared machine
    # spinning threads starve each other (a training epoch took 4x longer); it must be set
    # before torch is imported, which the commands below do lazily.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    parser = _parser()
    args = parser.parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    return args.run(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ner", description=__doc__)
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="fine-tune on the corpus and save the model")
    p.add_argument("--out", type=Path, default=None,
                   help="model folder to write (default: <FPKG_CACHE_DIR>/ner-model, which the app loads "
                        "when NER_MODEL is unset)")
    p.add_argument("--base", help="Hub id or folder (default: the bundled all-MiniLM-L6-v2)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--patience", type=int, default=2, help="epochs without dev F1 gain before stopping")
    p.add_argument("--limit", type=int, help="train on the first N sentences only")
    p.add_argument("--layers", type=int, default=3,
                   help="keep only the base model's first N transformer layers (default: 3; 0: all)")
    p.add_argument("--augment", type=int, default=600,
                   help="synthetic free-text sentences built from the training entities (0: none)")
    p.add_argument("--prose", type=int, default=1500,
                   help="synthetic letters, reports, notes and questions from the HPO vocabulary (0: none)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(run=_train)

    p = sub.add_parser("evaluate", help="strict entity-level P/R/F1 (seqeval)")
    p.add_argument("--model", required=True, help="model folder or Hub id")
    p.add_argument("--data", type=Path, help=f"CoNLL file (default: the test split); or a split: {SPLITS}")
    p.add_argument("--text", action="store_true",
                   help="predict on each sentence's raw text ('# text =') and match character spans")
    p.add_argument("--rules", action="store_true", help="with --text: merge rule spans")
    p.add_argument("--genes", type=Path, help="gene symbols for the rules, one per line (default: the HPO release's)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=_evaluate)

    p = sub.add_parser("predict", help="print the entity spans of a text")
    p.add_argument("text")
    p.add_argument("--model", help="model folder, Hub id or `rules` (default: NER_MODEL, else as the app chooses)")
    p.add_argument("--genes", type=Path, help="gene symbols for the rules, one per line (default: the HPO release's)")
    p.add_argument("--no-rules", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_predict)

    p = sub.add_parser("audit", help="report label noise in the corpus")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_audit)
    return parser


def _split_file(settings: Settings, data: Path | None) -> tuple[str, Path]:
    if data is None or str(data) in SPLITS:
        split = str(data) if data else "test"
        return split, corpus_path(settings.data_dir, split)
    return data.stem, data


def _train(args) -> int:
    from hf_card.model_card import write_model_card
    from ner.evaluate import evaluate_tagger, format_scores, write_eval
    from ner.model_choice import trained_model_folder
    from ner.tagger import WordTagger
    from ner.train import TrainConfig, train

    settings = Settings.from_env()
    args.out = args.out or trained_model_folder(settings.cache_dir)
    data = {s: read_conll(corpus_path(settings.data_dir, s)) for s in SPLITS}
    config = TrainConfig(
        out=args.out, base=args.base, epochs=args.epochs, learning_rate=args.lr,
        batch_size=args.batch_size, seed=args.seed, patience=args.patience, limit=args.limit,
        augment=args.augment, prose=args.prose,
        layers=args.layers or None,
        progress=not args.no_progress,
    )
    train(config, data["train"], data["dev"], log=lambda m: print(m, flush=True))
    tagger = WordTagger.from_pretrained(args.out)
    for split in ("dev", "test"):
        scores = evaluate_tagger(tagger, data[split])
        write_eval(args.out, split, scores, corpus_path(settings.data_dir, split))
        print(format_scores(scores, f"{split} (strict, seqeval)"))
    print(f"model card: {write_model_card(args.out)}")
    return 0


def _evaluate(args) -> int:
    from ner.evaluate import evaluate_tagger, format_scores, span_scores, write_eval
    from ner.predict import EntityRecognizer

    settings = Settings.from_env()
    split, path = _split_file(settings, args.data)
    sentences = read_conll(path)
    started = time.perf_counter()
    if args.text:
        recognizer = EntityRecognizer.load(args.model, _genes(args.genes), rules=args.rules)
        if not recognizer.model_available:
            print(f"warning: {recognizer.notice}", file=sys.stderr)
        predicted = recognizer.predict_batch([s.raw_text() for s in sentences])
        scores = span_scores([s.entities() for s in sentences],
                             [[(p.type, p.start, p.end) for p in row] for row in predicted])
        scores["sentences"] = len(sentences)
        if Path(args.model).is_dir() and recognizer.model_available:
            write_eval(Path(args.model), f"{split} (raw text, {'model + rules' if args.rules else 'model alone'})",
                       scores, path)
    else:
        recognizer = EntityRecognizer.load(args.model, rules=False)
        if recognizer.tagger is None:
            raise NerError(recognizer.notice.removesuffix("; using rules only"))
        scores = evaluate_tagger(recognizer.tagger, sentences)
        if Path(args.model).is_dir():
            write_eval(Path(args.model), split, scores, path)
    scores["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(scores, indent=2) if args.json else format_scores(scores, f"{path.name} (strict)"))
    return 0


def _predict(args) -> int:
    from ner.model_choice import choose_model
    from ner.predict import EntityRecognizer

    settings = Settings.from_env()
    choice = choose_model(replace(settings, ner_model=args.model) if args.model else settings)
    recognizer = EntityRecognizer.load(choice.model, _genes(args.genes), rules=not args.no_rules,
                                       revision=choice.revision)
    print(f"note: {recognizer.notice}" if recognizer.notice else f"model: {choice.model} ({choice.reason})",
          file=sys.stderr)
    spans = recognizer.predict(args.text)
    if args.json:
        print(json.dumps([asdict(s) for s in spans], ensure_ascii=False))
    else:
        for s in spans:
            print(f"{s.type:<17} {s.start:>5}-{s.end:<5} {s.score:.3f} {s.source:<5} {s.text}")
    return 0


def _audit(args) -> int:
    from ner.audit import audit, format_audit

    settings = Settings.from_env()
    findings = audit({s: read_conll(corpus_path(settings.data_dir, s)) for s in SPLITS})
    print(json.dumps(findings, indent=2) if args.json else format_audit(findings))
    return 0


def _genes(path: Path | None) -> list[str]:
    if path is None:
        from ner.vocabulary import hpo_gene_symbols

        return hpo_gene_symbols()
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
