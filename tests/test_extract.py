from codefrontier.judge.extract import extract_code

F = "```"


def test_takes_the_last_complete_python_block():
    text = f"first\n{F}python\nprint(1)\n{F}\nthen\n{F}python\nprint(2)\n{F}\n"
    assert extract_code(text) == "print(2)\n"


def test_accepts_py_and_bare_fences():
    assert extract_code(f"{F}py\nx = 1\n{F}") == "x = 1\n"
    assert extract_code(f"{F}\nx = 2\n{F}") == "x = 2\n"


def test_ignores_blocks_in_other_languages():
    text = f"{F}python\nprint(1)\n{F}\n{F}cpp\nint main() {{}}\n{F}\n"
    assert extract_code(text) == "print(1)\n"


def test_an_unclosed_block_is_not_a_program():
    assert extract_code(f"{F}python\nprint(1)\n") is None


def test_an_unclosed_last_block_falls_back_to_the_last_complete_one():
    text = f"{F}python\nprint(1)\n{F}\nmore\n{F}python\nprint(2)\n"
    assert extract_code(text) == "print(1)\n"


def test_no_block_is_none():
    assert extract_code("the answer is 42") is None
    assert extract_code("") is None


def test_inline_backticks_are_not_fences():
    assert extract_code("use ```x``` here") is None
