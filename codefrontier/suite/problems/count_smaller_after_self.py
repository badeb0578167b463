from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="count-smaller-after-self",
    title="Smaller numbers after self",
    difficulty="hard",
    kind="call",
    func_names=("countSmaller",),
    starter_code="class Solution:\n    def countSmaller(self, nums: List[int]) -> List[int]:\n        ",
    statements=("""\
Return counts where counts[i] is the number of elements to the right of nums[i]
that are strictly smaller than it.

Constraints: 1 <= len(nums) <= 10^5, -10^4 <= nums[i] <= 10^4.""",),
    efficient="""\
class Solution:
    def countSmaller(self, nums: List[int]) -> List[int]:
        offset = 10**4 + 1
        size = 2 * 10**4 + 2
        tree = [0] * (size + 1)
        counts = []
        for x in reversed(nums):
            i = x + offset - 1
            total = 0
            while i > 0:
                total += tree[i]
                i -= i & -i
            counts.append(total)
            i = x + offset
            while i <= size:
                tree[i] += 1
                i += i & -i
        return counts[::-1]
""",
    slow="""\
class Solution:
    def countSmaller(self, nums: List[int]) -> List[int]:
        return [sum(1 for y in nums[i + 1:] if y < x) for i, x in enumerate(nums)]
""",
    buggy="""\
class Solution:
    def countSmaller(self, nums: List[int]) -> List[int]:
        offset = 10**4 + 1
        size = 2 * 10**4 + 2
        tree = [0] * (size + 1)
        counts = []
        for x in reversed(nums):
            i = x + offset
            total = 0
            while i > 0:
                total += tree[i]
                i -= i & -i
            counts.append(total)
            i = x + offset
            while i <= size:
                tree[i] += 1
                i += i & -i
        return counts[::-1]
""",
    generate=lambda rng, n, knobs: (ints(rng, max(1, n), -min(10**4, n), min(10**4, n)),),
    edge_cases=(([5, 2, 6, 1],), ([-1],), ([-1, -1],)),
)
