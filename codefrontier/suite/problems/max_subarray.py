from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="max-subarray",
    title="Maximum subarray sum",
    difficulty="easy",
    kind="call",
    func_names=("maxSubArray",),
    starter_code="class Solution:\n    def maxSubArray(self, nums: List[int]) -> int:\n        ",
    statements=("""\
Given an integer array nums, return the largest sum of a non-empty contiguous
subarray.

Constraints: 1 <= len(nums) <= 10^5, -10^4 <= nums[i] <= 10^4.""",),
    efficient="""\
class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = current = nums[0]
        for x in nums[1:]:
            current = max(x, current + x)
            best = max(best, current)
        return best
""",
    slow="""\
class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = nums[0]
        for i in range(len(nums)):
            total = 0
            for j in range(i, len(nums)):
                total += nums[j]
                best = max(best, total)
        return best
""",
    buggy="""\
class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = current = 0
        for x in nums:
            current = max(0, current + x)
            best = max(best, current)
        return best
""",
    generate=lambda rng, n, knobs: (ints(rng, n, -100, 100),),
    edge_cases=(([-2, 1, -3, 4, -1, 2, 1, -5, 4],), ([-3, -1, -2],), ([5],)),
)
