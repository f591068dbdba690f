"""Markdown tables name their index columns (noveval.core.markdown)."""

from __future__ import annotations

import pandas as pd
import pytest

from noveval.core.markdown import markdown_table


def lines(text: str) -> list[str]:
    """A Markdown table's rows with the padding collapsed."""
    return [" ".join(line.split()) for line in text.splitlines()]


def test_a_multiindex_becomes_its_named_columns_and_no_tuple_label():
    index = pd.MultiIndex.from_tuples(
        [("human-only", "smollm2-135m"), ("human-plus-generated", "gpt-5.1")],
        names=["setup", "model"],
    )
    frame = pd.DataFrame({"reference": ["95.0*", "80.5"]}, index=index)
    shown = lines(markdown_table(frame.rename_axis(columns="change")))
    assert shown[0] == "| setup | model | reference |"
    assert shown[2:] == [
        "| human-only | smollm2-135m | 95.0* |",
        "| human-plus-generated | gpt-5.1 | 80.5 |",
    ]
    assert "('" not in "\n".join(shown)


def test_a_named_index_heads_its_column_and_an_unnamed_one_is_left_out():
    counts = pd.Series([3, 1], index=pd.Index(["no key", "too long"], name="reason"))
    shown = lines(markdown_table(counts.to_frame("rows")))
    assert shown[0] == "| reason | rows |"
    assert shown[2:] == ["| no key | 3 |", "| too long | 1 |"]
    kept = pd.DataFrame({"model": ["a", "b", "c"], "usd": [0.5, 1.0, 2.0]}).iloc[[2, 0]]
    assert markdown_table(kept, floatfmt=".3f") == kept.to_markdown(index=False, floatfmt=".3f")
    assert lines(markdown_table(kept, floatfmt=".3f"))[2] == "| c | 2.000 |"


def test_a_table_whose_labels_would_be_lost_or_tuples_is_refused():
    unnamed = pd.DataFrame({"x": [1]}, index=pd.MultiIndex.from_tuples([("a", "b")]))
    with pytest.raises(ValueError, match="name them"):
        markdown_table(unnamed)
    partly = unnamed.rename_axis(["setup", None])
    with pytest.raises(ValueError, match="name every level"):
        markdown_table(partly)
    wide = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")]))
    with pytest.raises(ValueError, match="flatten"):
        markdown_table(wide)
