from codefrontier.judge.cache import ByteBudgetCache


def test_evicts_least_recently_used_beyond_the_budget():
    cache = ByteBudgetCache(max_bytes=10)
    cache.put("a", "A", 4)
    cache.put("b", "B", 4)
    assert cache.get("a") == "A"  # a is now the most recent
    cache.put("c", "C", 4)
    assert "b" not in cache and cache.get("a") == "A" and cache.get("c") == "C"


def test_keeps_the_newest_entry_even_over_budget():
    cache = ByteBudgetCache(max_bytes=0)
    cache.put("big", "X", 100)
    assert cache.get("big") == "X"
    cache.put("next", "Y", 1)
    assert "big" not in cache and cache.get("next") == "Y"


def test_replacing_a_key_recounts_its_size():
    cache = ByteBudgetCache(max_bytes=10)
    cache.put("a", "A", 8)
    cache.put("a", "A2", 2)
    cache.put("b", "B", 8)
    assert cache.get("a") == "A2" and cache.get("b") == "B"
