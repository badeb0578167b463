from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # a fee paid for every element of the chosen subarray
    return {"c": rng.randint(1, 50)}


def generate(rng, n, knobs):
    # values around the fee; in half the tests all are below it (the answer is negative)
    c = knobs["c"]
    return (ints(rng, n, c - 100, c + rng.choice((100, -1))),)


FAMILY = Family(
    slug="max-subarray",
    title="Maximum subarray sum",
    difficulty="easy",
    kind="call",
    time_limit_s=2.0,
    knobs=knobs,
    func_names=("maxSubArray", "bestSegment", "maxNetSum", "maxSubarrayValue"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int]) -> int:\n        ",
    statements=(
        """\
Given an integer array nums, choose a non-empty contiguous subarray; its value
is the sum of its elements minus $c for each element it contains. Return the
largest possible value.

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
        """\
nums[i] is what a market stall takes on day i. Renting the stall costs $c per
day, and it must be rented for one or more consecutive days. Return the largest
possible takings minus rent (it may be negative).

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
        """\
Return the maximum, over all non-empty contiguous subarrays of nums, of
(sum of the subarray) - $c * (length of the subarray).

Constraints: 1 <= len(nums) <= $max_n, -10^4 <= nums[i] <= 10^4.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        nums = [x - $c for x in nums]
        best = current = nums[0]
        for x in nums[1:]:
            current = max(x, current + x)
            best = max(best, current)
        return best
""",
    slow=(
        # every subarray as a recursion without memo: best(i, j) tries dropping either end
        SlowProgram("exponential", """\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        nums = [x - $c for x in nums]

        def best(i, j):
            whole = sum(nums[i:j + 1])
            if i == j:
                return whole
            return max(whole, best(i + 1, j), best(i, j - 1))

        return best(0, len(nums) - 1)
""", 2),
        SlowProgram("cubic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        nums = [x - $c for x in nums]
        best = nums[0]
        for i in range(len(nums)):
            for j in range(i, len(nums)):
                total = 0
                for k in range(i, j + 1):
                    total += nums[k]
                best = max(best, total)
        return best
""", 4),
        SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        nums = [x - $c for x in nums]
        best = nums[0]
        for i in range(len(nums)):
            total = 0
            for j in range(i, len(nums)):
                total += nums[j]
                if total > best:
                    best = total
        return best
""", 5),
    ),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        nums = [x - $c for x in nums]
        best = current = 0
        for x in nums:
            current = max(0, current + x)
            best = max(best, current)
        return best
""",
    generate=generate,
    edge_cases=lambda knobs: (([-2, 1, -3, 4, -1, 2, 1, -5, 4],), ([-3, -1, -2],), ([5],),
                              ([knobs["c"] - 1, knobs["c"] + 3, knobs["c"] - 4, knobs["c"] + 2],)),
)
