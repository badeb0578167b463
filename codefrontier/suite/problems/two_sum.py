from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # Every value is 0 mod 4 except the two that form the answer (1 mod 4), so the
    # pair is unique: no other pair sums to 2 mod 4. On inputs of 100 numbers or more
    # the pair lies in the second half, so that trying every pair in order goes far.
    n = max(n, 2)
    nums = [4 * rng.randint(-10**4, 10**4) for _ in range(n)]
    i, j = rng.sample(range(n // 2 if n >= 100 else 0, n), 2)
    nums[i], nums[j] = 4 * rng.randint(-10**4, 10**4) + 1, 4 * rng.randint(-10**4, 10**4) + 1
    target = nums[i] + nums[j]
    # Half the time, before the pair, a decoy: half the target (odd, so it pairs with
    # nothing), which a program that may use one element twice takes for an answer.
    if nums[i] != nums[j] and min(i, j) > 0 and rng.random() < 0.5:
        nums[rng.randrange(min(i, j))] = target // 2
    return (nums, target)


def knobs(rng):
    # indices counted from 0 or from 1 (an I/O detail the program must follow)
    return {"base": rng.choice((0, 1))}


FAMILY = Family(
    slug="two-sum",
    title="Two sum",
    difficulty="easy",
    kind="call",
    time_limit_s=1.0,  # centred between the double loop's times at 10^4 and 10^5 bytes
    knobs=knobs,
    func_names=("twoSum", "pairIndices", "findPair", "indicesOfSum"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int], target: int) -> List[int]:\n        ",
    statements=(
        """\
Return the indices [i, j], i < j, of the only two elements of nums that add up
to target. Exactly one such pair exists. Indices start at $base.

Constraints: 2 <= len(nums) <= $max_n, |nums[i]| <= 10^5.""",
        """\
Exactly two entries of nums sum to target. Give their positions as a list
[i, j] with i < j, counting positions from $base.

Constraints: 2 <= len(nums) <= $max_n, |nums[i]| <= 10^5.""",
        """\
Find the unique pair of elements of nums whose sum equals target and return
their indices, smaller index first. The first element has index $base.

Constraints: 2 <= len(nums) <= $max_n, |nums[i]| <= 10^5.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int], target: int) -> List[int]:
        where = {}
        for j, x in enumerate(nums):
            if target - x in where:
                return [where[target - x] + $base, j + $base]
            where[x] = j
        return []
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int], target: int) -> List[int]:
        for i in range(len(nums)):
            for j in range(i + 1, len(nums)):
                if nums[i] + nums[j] == target:
                    return [i + $base, j + $base]
        return []
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int], target: int) -> List[int]:
        where = {x: i for i, x in enumerate(nums)}
        for i, x in enumerate(nums):
            if target - x in where:
                return sorted([i + $base, where[target - x] + $base])
        return []
""",
    generate=generate,
    edge_cases=(([2, 7, 11, 15], 9), ([3, 2, 4], 6), ([3, 3], 6)),
)
