"""Model wrappers for the metrics: a sentence encoder and a causal-LM perplexity scorer.

Both take a model reference (see :mod:`noveval.core.assets`), load the model once, and score each
unique text once, in batches.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from noveval.core.assets import build_once, file_digest, resolve
from noveval.inference.engines.servers import usable_threads


def default_device() -> str:
    """``cuda`` when available, else ``cpu``."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def use_threads(count: int) -> None:
    """Run torch on ``count`` CPU threads (the job's CPUs, not every core of the node), at most
    the CPUs this process may run on."""
    torch.set_num_threads(usable_threads(count))


def unique_texts(texts: list[str]) -> list[str]:
    """Texts in first-seen order, each once."""
    return list(dict.fromkeys(texts))


def length_batches(encoded: dict[str, list[int]], batch_tokens: int) -> list[list[str]]:
    """Texts sorted by token count, grouped so each padded batch holds at most ``batch_tokens``.

    A text longer than ``batch_tokens`` gets a batch of its own.
    """
    batches: list[list[str]] = []
    for text in sorted(encoded, key=lambda text: len(encoded[text])):
        if batches and (len(batches[-1]) + 1) * len(encoded[text]) <= batch_tokens:
            batches[-1].append(text)
        else:
            batches.append([text])
    return batches


class SentenceEncoder:
    """sentence-transformers encoder returning L2-normalised vectors per unique text."""

    def __init__(self, reference: str, batch_size: int = 64):
        from sentence_transformers import SentenceTransformer

        self.reference = reference
        self.batch_size = batch_size
        self.model = SentenceTransformer(resolve(reference), device=default_device())

    def encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Map each unique text to its normalised embedding."""
        unique = unique_texts(texts)
        if not unique:
            return {}
        vectors = self.model.encode(
            unique,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return dict(zip(unique, vectors, strict=True))


class PerplexityScorer:
    """Per-text perplexity from a causal LM (a local ``.gguf`` file or a hub id / folder)."""

    def __init__(self, reference: str, batch_tokens: int = 1024, max_tokens: int = 1024):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.reference = reference
        self.batch_tokens = batch_tokens
        self.max_tokens = max_tokens
        self.device = default_device()
        location = resolve(reference)
        if location.endswith(".gguf"):
            location = str(gguf_as_transformers(Path(location)))
        self.tokenizer = AutoTokenizer.from_pretrained(location)
        model = AutoModelForCausalLM.from_pretrained(location)
        self.model = model.to(self.device).eval()
        self.pad_id = next(
            (
                token_id
                for token_id in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id)
                if token_id is not None
            ),
            0,
        )

    def token_ids(self, text: str) -> list[int]:
        """Token ids of ``text``, with the BOS token first when the tokenizer has one."""
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if self.tokenizer.bos_token_id is not None:
            ids = [self.tokenizer.bos_token_id, *ids]
        return ids[: self.max_tokens]

    def perplexities(self, texts: list[str]) -> dict[str, float]:
        """Map each unique text to exp(mean NLL of its tokens given their prefix).

        A text with fewer than two tokens (BOS included) has nothing to predict and gets NaN.
        """
        unique = unique_texts(texts)
        encoded = {text: self.token_ids(text) for text in unique}
        result: dict[str, float] = {}
        for batch in length_batches(encoded, self.batch_tokens):
            nlls = self.mean_nlls([encoded[text] for text in batch])
            result.update(zip(batch, np.exp(nlls).tolist(), strict=True))
        return {text: result[text] for text in unique}

    @torch.inference_mode()
    def mean_nlls(self, sequences: list[list[int]]) -> np.ndarray:
        """Mean next-token NLL per sequence, right-padded into one batch.

        The LM head runs only on the positions that predict a token (no padding, no last
        position): its vocabulary-wide product is the largest single cost of a small LM.
        """
        width = max(1, *(len(ids) for ids in sequences))
        input_ids = torch.full((len(sequences), width), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, ids in enumerate(sequences):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            attention_mask[row, : len(ids)] = 1
        input_ids, attention_mask = input_ids.to(self.device), attention_mask.to(self.device)
        hidden = self.model.base_model(
            input_ids=input_ids, attention_mask=attention_mask
        ).last_hidden_state
        targets = input_ids[:, 1:]
        predicting = attention_mask[:, 1:].bool()
        logits = self.model.get_output_embeddings()(hidden[:, :-1][predicting]).float()
        nll = torch.zeros(targets.shape, device=self.device)
        nll[predicting] = torch.nn.functional.cross_entropy(
            logits, targets[predicting], reduction="none"
        )
        counts = predicting.sum(dim=1)
        means = nll.sum(dim=1) / counts
        return means.masked_fill(counts == 0, float("nan")).cpu().numpy()


def gguf_as_transformers(gguf: Path) -> Path:
    """A GGUF model as a transformers folder (its dequantised weights in float32, its tokenizer),
    converted once per file content into the asset cache.

    transformers reads a GGUF file by parsing it in Python, about 25 s for SmolLM2-135M at every
    load; the converted folder loads in about a second, with the same tensors.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    def convert(folder: Path) -> None:
        source = {"pretrained_model_name_or_path": str(gguf.parent), "gguf_file": gguf.name}
        AutoTokenizer.from_pretrained(**source).save_pretrained(folder)
        dequantised = AutoModelForCausalLM.from_pretrained(**source)
        config = dequantised.config
        del config.quantization_config  # the tensors are plain float32 now
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(dequantised.state_dict())
        model.save_pretrained(folder)

    return build_once(f"gguf/{gguf.stem}-{file_digest(gguf)[:16]}", convert)
