from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # small values, and a few planted pairs that sum to the target, so that even the
    # smallest tests have answers above 0
    nums = ints(rng, max(n, 1), -10, 10)
    for _ in range(max(1, len(nums) // 20)):
        i = rng.randrange(len(nums))
        nums[i] = knobs["k"] - (nums[i - 1] if i else 0)
    return (nums,)


def knobs(rng):
    # the target sum, a constant of the instance (no longer an argument)
    return {"k": rng.randint(1, 99)}


FAMILY = Family(
    slug="subarray-sum-k",
    title="Subarrays summing to k",
    difficulty="medium",
    time_limit_s=4.0,  # the quadratic program needs up to 0.5 s below 10^5 bytes
    kind="call",
    knobs=knobs,
    func_names=("subarraySum", "countSubarrays", "subarraysWithSum", "countTargetSums"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int]) -> int:\n        ",
    statements=(
        """\
Return the number of non-empty contiguous subarrays of nums whose sum is
exactly $k.

Constraints: 1 <= len(nums) <= $max_n, -1000 <= nums[i] <= 1000.""",
        """\
How many pairs (i, j) with i <= j satisfy nums[i] + nums[i+1] + ... + nums[j]
== $k? Return that count.

Constraints: 1 <= len(nums) <= $max_n, -1000 <= nums[i] <= 1000.""",
        """\
The target is $k. Count the contiguous, non-empty stretches of the integer list
nums whose elements add up to the target, and return the count.

Constraints: 1 <= len(nums) <= $max_n, -1000 <= nums[i] <= 1000.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        seen = {0: 1}
        total = count = 0
        for x in nums:
            total += x
            count += seen.get(total - $k, 0)
            seen[total] = seen.get(total, 0) + 1
        return count
""",
    slow=(
        # every subarray summed afresh
        SlowProgram("cubic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        count = 0
        for i in range(len(nums)):
            for j in range(i, len(nums)):
                if sum(nums[i:j + 1]) == $k:
                    count += 1
        return count
""", 4),
        SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        count = 0
        for i in range(len(nums)):
            total = 0
            for x in nums[i:]:
                total += x
                if total == $k:
                    count += 1
        return count
""", 5),
    ),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> int:
        seen = {}
        total = count = 0
        for x in nums:
            total += x
            count += seen.get(total - $k, 0)
            seen[total] = seen.get(total, 0) + 1
        return count
""",
    generate=generate,
    edge_cases=lambda knobs: (([knobs["k"]],), ([knobs["k"], 0, 0],), ([1, knobs["k"] - 1, 1],),
                              ([knobs["k"], -knobs["k"], knobs["k"]],), ([0],)),
)
