from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="subarray-sum-k",
    title="Subarrays summing to k",
    difficulty="medium",
    kind="call",
    func_names=("subarraySum",),
    starter_code="class Solution:\n    def subarraySum(self, nums: List[int], k: int) -> int:\n        ",
    statements=("""\
Return the number of non-empty contiguous subarrays of nums whose sum is k.

Constraints: 1 <= len(nums) <= 10^5, -1000 <= nums[i] <= 1000, |k| <= 10^7.""",),
    efficient="""\
class Solution:
    def subarraySum(self, nums: List[int], k: int) -> int:
        seen = {0: 1}
        total = count = 0
        for x in nums:
            total += x
            count += seen.get(total - k, 0)
            seen[total] = seen.get(total, 0) + 1
        return count
""",
    slow="""\
class Solution:
    def subarraySum(self, nums: List[int], k: int) -> int:
        count = 0
        for i in range(len(nums)):
            total = 0
            for j in range(i, len(nums)):
                total += nums[j]
                if total == k:
                    count += 1
        return count
""",
    buggy="""\
class Solution:
    def subarraySum(self, nums: List[int], k: int) -> int:
        seen = {}
        total = count = 0
        for x in nums:
            total += x
            count += seen.get(total - k, 0)
            seen[total] = seen.get(total, 0) + 1
        return count
""",
    generate=lambda rng, n, knobs: (ints(rng, n, -10, 10), rng.randint(-5, 5)),
    edge_cases=(([1, 1, 1], 2), ([1, 2, 3], 3), ([0, 0], 0), ([5], 5)),
)
