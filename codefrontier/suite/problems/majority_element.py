from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    major = rng.randint(-10**6, 10**6)
    count = n // 2 + 1
    # The other values come first: checking candidates in order is then quadratic.
    others = [rng.randint(-10**6, 10**6) for _ in range(n - count)]
    return (others + [major] * count,)


FAMILY = Family(
    slug="majority-element",
    title="Majority element",
    difficulty="easy",
    kind="call",
    func_names=("majorityElement",),
    starter_code="class Solution:\n    def majorityElement(self, nums: List[int]) -> int:\n        ",
    statements=("""\
Return the value that occurs more than len(nums) / 2 times in nums; one always
exists.

Constraints: 1 <= len(nums) <= 10^5, |nums[i]| <= 10^6.""",),
    efficient="""\
class Solution:
    def majorityElement(self, nums: List[int]) -> int:
        candidate, votes = None, 0
        for x in nums:
            if votes == 0:
                candidate = x
            votes += 1 if x == candidate else -1
        return candidate
""",
    slow="""\
class Solution:
    def majorityElement(self, nums: List[int]) -> int:
        for x in nums:
            count = 0
            for y in nums:
                if y == x:
                    count += 1
            if count > len(nums) // 2:
                return x
""",
    buggy="""\
class Solution:
    def majorityElement(self, nums: List[int]) -> int:
        return sorted(nums)[(len(nums) - 1) // 2 - 1 if len(nums) > 2 else 0]
""",
    generate=generate,
    edge_cases=(([3, 2, 3],), ([2, 2, 1, 1, 1, 2, 2],), ([7],)),
)
