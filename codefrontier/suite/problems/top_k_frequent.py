from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    nums = [rng.randint(0, max(1, n // 3)) for _ in range(n)]
    return (nums, max(1, len(set(nums)) // 2))


FAMILY = Family(
    slug="top-k-frequent",
    title="Top k frequent values",
    difficulty="medium",
    kind="call",
    func_names=("topKFrequent",),
    starter_code=("class Solution:\n    def topKFrequent(self, nums: List[int], k: int)"
                  " -> List[int]:\n        "),
    statements=("""\
Return the k values that occur most often in nums, most frequent first; values
that occur equally often are ordered from smallest to largest.

Constraints: 1 <= len(nums) <= 10^5, 0 <= nums[i] <= 10^5, 1 <= k <= the number
of distinct values.""",),
    efficient="""\
class Solution:
    def topKFrequent(self, nums: List[int], k: int) -> List[int]:
        counts = Counter(nums)
        return sorted(counts, key=lambda v: (-counts[v], v))[:k]
""",
    slow="""\
class Solution:
    def topKFrequent(self, nums: List[int], k: int) -> List[int]:
        remaining = list(set(nums))
        chosen = []
        for _ in range(k):
            best = None
            for v in remaining:
                c = nums.count(v)
                if best is None or c > best[0] or (c == best[0] and v < best[1]):
                    best = (c, v)
            chosen.append(best[1])
            remaining.remove(best[1])
        return chosen
""",
    buggy="""\
class Solution:
    def topKFrequent(self, nums: List[int], k: int) -> List[int]:
        return [v for v, _ in Counter(nums).most_common(k)]
""",
    generate=generate,
    edge_cases=(([1, 1, 1, 2, 2, 3], 2), ([4], 1), ([5, 3, 5, 3, 1], 2)),
)
