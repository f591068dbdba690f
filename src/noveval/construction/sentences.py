"""Sentences of introductions and reviews, the context window of the introduction prompt, and the
reading of the authors' yes/no answers."""

from __future__ import annotations

from functools import cache

MIN_SENTENCE_CHARS = 10  # the authors keep sentences of at least 10 characters
MIN_PARAGRAPH_CHARS = 5  # and introduction paragraphs of at least 5
CONTEXT_WINDOW = 2  # sentences on each side of the target


@cache
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (pysbd, stripped) of at least ``MIN_SENTENCE_CHARS``."""
    sentences = (sentence.strip() for sentence in _segmenter().segment(text or ""))
    return [sentence for sentence in sentences if len(sentence) >= MIN_SENTENCE_CHARS]


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
