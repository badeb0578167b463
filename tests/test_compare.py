import json

from hypothesis import given
from hypothesis import strategies as st

from codefrontier.judge.compare import json_outputs_match, tokens_match, values_match


def test_tokens_ignore_whitespace_layout():
    assert tokens_match("1 2\n3\n", "1  2 3")
    assert tokens_match("", "\n")


def test_token_count_and_value_matter():
    assert not tokens_match("1 2", "1 2 3")
    assert not tokens_match("YES", "NO")


def test_floats_within_tolerance():
    assert tokens_match("0.3333333", "0.333333333")
    assert tokens_match("1000000.5", "1000000.4")  # relative 1e-7
    assert not tokens_match("0.34", "0.33")


def test_integers_compare_exactly():
    assert not tokens_match("1000000000000000001", "1000000000000000000")
    assert tokens_match("+5", "5")


def test_non_numeric_tokens_compare_exactly():
    assert not tokens_match("abc", "abd")
    assert not tokens_match("nan", "1")


def test_json_values_as_data():
    assert json_outputs_match("[1, 2, 3]", "[1,2,3]")
    assert json_outputs_match("0.1", "0.10000001")
    assert not json_outputs_match("[1, 2]", "[2, 1]")
    assert not json_outputs_match("true", "1")  # a bool is not the number 1
    assert not json_outputs_match("not json", "1")
    assert not json_outputs_match('{"a": 1}', '{"a": 1, "b": 2}')


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda children: st.lists(children) | st.dictionaries(st.text(), children)))
def test_every_json_value_matches_itself(value):
    assert values_match(json.loads(json.dumps(value)), value)
