"""A tiny random Llama with a real byte-level BPE tokenizer and chat template, saved to a folder.

Used by the tests (the local path, NF4 on the CPU): it exercises
exactly the loading, chat-template, quantisation and streaming code that a real model goes through,
in a second, without downloading anything.
"""

from __future__ import annotations

from pathlib import Path

CORPUS = [
    "A 5-year-old boy with a heterozygous PTPN11 variant has hypertelorism and low-set ears.",
    "The most likely diagnosis is Noonan syndrome.",
    "Answer: B. Kabuki syndrome",
    "MATCH (g:Gene {name: 'KMT2D'})-[:ASSOCIATED_WITH]->(d:Disease) RETURN d.name LIMIT 10",
    "The evidence does not mention this gene.",
    "Facial features: epicanthus, long palpebral fissures, arched eyebrows, short philtrum.",
]
SPECIAL_TOKENS = ["<|pad|>", "<|bos|>", "<|eos|>", "<|system|>", "<|user|>", "<|assistant|>"]
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|eos|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def build_tokenizer(chat_template: bool = True):
    """A byte-level BPE (any text encodes, no unknown tokens) trained on a few sentences."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<|bos|>",
        eos_token="<|eos|>",
        pad_token="<|pad|>",
    )
    if chat_template:
        tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_llama(folder: str | Path, *, chat_template: bool = True, seed: int = 0) -> Path:
    """Write a random 2-layer Llama (hidden 64) and its tokenizer to `folder`; return the folder."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    tokenizer = build_tokenizer(chat_template=chat_template)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)  # same weights every build, so outputs are reproducible across runs
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
