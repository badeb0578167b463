from codefrontier.suite.spec import SuiteProblem


def generate(rng, n):
    # Every value is 0 mod 4 except the two that form the answer (1 mod 4), so the
    # pair is unique: no other pair sums to 2 mod 4.
    n = max(n, 2)
    nums = [4 * rng.randint(-10**4, 10**4) for _ in range(n)]
    i, j = rng.sample(range(n), 2)
    nums[i], nums[j] = 4 * rng.randint(-10**4, 10**4) + 1, 4 * rng.randint(-10**4, 10**4) + 1
    return (nums, nums[i] + nums[j])


PROBLEM = SuiteProblem(
    slug="two-sum",
    title="Two sum",
    difficulty="easy",
    kind="call",
    func_name="twoSum",
    starter_code="class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
    statement="""\
Return the indices [i, j], i < j, of the only two elements of nums that add up
to target. Exactly one such pair exists.

Constraints: 2 <= len(nums) <= 10^5, |nums[i]| <= 10^5.""",
    efficient="""\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        where = {}
        for j, x in enumerate(nums):
            if target - x in where:
                return [where[target - x], j]
            where[x] = j
        return []
""",
    slow="""\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        for i in range(len(nums)):
            for j in range(i + 1, len(nums)):
                if nums[i] + nums[j] == target:
                    return [i, j]
        return []
""",
    buggy="""\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        where = {x: i for i, x in enumerate(nums)}
        for i, x in enumerate(nums):
            if target - x in where:
                return sorted([i, where[target - x]])
        return []
""",
    generate=generate,
    edge_cases=(([2, 7, 11, 15], 9), ([3, 2, 4], 6), ([3, 3], 6)),
)
