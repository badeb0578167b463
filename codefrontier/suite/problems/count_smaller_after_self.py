from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    top = min(10**4, max(n, 3 * knobs["d"]))
    return (ints(rng, max(1, n), -top, top),)


def knobs(rng):
    # the gap: nums[j] counts for nums[i] when nums[j] <= nums[i] - d
    return {"d": rng.randint(1, 40)}


FAMILY = Family(
    slug="count-smaller-after-self",
    time_limit_s=1.5,
    title="Smaller numbers after self",
    difficulty="hard",
    kind="call",
    knobs=knobs,
    func_names=("countSmaller", "smallerAfterSelf", "countSmallerToRight", "lowerOnTheRight"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int]) -> List[int]:\n        ",
    statements=(
        """\
Return counts where counts[i] is the number of elements to the right of nums[i]
that are smaller than it by at least $d, i.e. the number of j > i with
nums[j] <= nums[i] - $d.

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
        """\
For every position i of nums, count the later positions j (j > i) whose value is
at most nums[i] - $d. Return the counts as a list, in the order of the positions.

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
        """\
An element nums[j] is well below nums[i] when nums[j] + $d <= nums[i]. Return a
list whose i-th entry is how many elements after position i are well below
nums[i].

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        offset = 10**4 + 1
        size = 2 * 10**4 + 2
        tree = [0] * (size + 1)
        counts = []
        for x in reversed(nums):
            i = x + offset - $d
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
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        return [sum(1 for y in nums[i + 1:] if y <= x - $d) for i, x in enumerate(nums)]
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        offset = 10**4 + 1
        size = 2 * 10**4 + 2
        tree = [0] * (size + 1)
        counts = []
        for x in reversed(nums):
            i = x + offset - $d + 1
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
    generate=generate,
    edge_cases=lambda knobs: (([5, 2, 6, 1],), ([-1],), ([-1, -1],), ([knobs["d"], 1],)),
)
