from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n = max(n, 1)
    return ([rng.randint(0, max(1, n // 3)) for _ in range(n)],)


def knobs(rng):
    # how many values to return, a constant of the instance (no longer an argument)
    return {"k": rng.randint(2, 12)}


FAMILY = Family(
    slug="top-k-frequent",
    title="Top k frequent values",
    difficulty="medium",
    time_limit_s=1.0,  # the counting program needs up to 0.13 s below 10^5 bytes
    kind="call",
    knobs=knobs,
    func_names=("topKFrequent", "mostFrequentValues", "kMostFrequent", "topByCount"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int]) -> List[int]:\n        ",
    statements=(
        """\
Return the $k values that occur most often in nums (all distinct values, if
there are fewer than $k), most frequent first; values that occur equally often
are ordered from smallest to largest.

Constraints: 1 <= len(nums) <= $max_n, 0 <= nums[i] <= 10^5.""",
        """\
Rank the distinct values of nums by how many times they occur, highest count
first, breaking ties by the smaller value first. Return the first $k values of
this ranking (the whole ranking if it has fewer than $k values).

Constraints: 1 <= len(nums) <= $max_n, 0 <= nums[i] <= 10^5.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        counts = Counter(nums)
        return sorted(counts, key=lambda v: (-counts[v], v))[:$k]
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        counts = {v: nums.count(v) for v in nums}
        remaining = list(counts)
        chosen = []
        for _ in range(min($k, len(remaining))):
            best = None
            for v in remaining:
                c = counts[v]
                if best is None or c > best[0] or (c == best[0] and v < best[1]):
                    best = (c, v)
            chosen.append(best[1])
            remaining.remove(best[1])
        return chosen
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        return [v for v, _ in Counter(nums).most_common($k)]
""",
    generate=generate,
    edge_cases=(([1, 1, 1, 2, 2, 3],), ([4],), ([5, 3, 5, 3, 1],), ([9, 8, 7, 7, 8],)),
)
